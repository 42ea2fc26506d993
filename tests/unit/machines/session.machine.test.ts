import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, SimulatedClock, waitFor } from 'xstate';
import {
  SESSION_EXPIRED_MESSAGE,
  SIGN_OUT_TIMEOUT_MS,
  sessionMachine,
  type NotifyParams,
} from '../../../src/machines/session.machine';
import {
  selectHasSession,
  selectIsBusy,
  selectLastError,
  selectSessionStatus,
  selectUser,
} from '../../../src/machines/session.selectors';
import type { SessionUser, SignInRequest } from '../../../src/machines/session.types';

const ada: SessionUser = {
  identity: 'u1',
  name: 'Ada',
  email: 'ada@example.com',
  role: 'admin',
  picture: null,
  extension: null,
};

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}
function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A session actor whose server calls are answered by the test, one call at a time. */
function startSession(clock?: SimulatedClock) {
  const restore = deferred<SessionUser | null>();
  let signIn = deferred<SessionUser>();
  let signOut = deferred<void>();
  const signOutSignals: AbortSignal[] = [];
  const signInRequests: SignInRequest[] = [];
  const toasts: NotifyParams[] = [];
  const actor = createActor(
    sessionMachine.provide({
      actors: {
        restoreSession: fromPromise(() => restore.promise),
        signIn: fromPromise(({ input }: { input: SignInRequest }) => {
          signInRequests.push(input);
          return signIn.promise;
        }),
        signOut: fromPromise(({ signal }) => {
          signOutSignals.push(signal);
          return signOut.promise;
        }),
      },
      actions: { notify: (_, params: NotifyParams) => toasts.push(params) },
    }),
    clock ? { clock } : {},
  ).start();
  const status = () => selectSessionStatus(actor.getSnapshot());
  const settle = (target: string) => waitFor(actor, (s) => s.value === target, { timeout: 1000 });
  return {
    actor,
    status,
    settle,
    restore,
    signInRequests,
    signOutSignals,
    toasts,
    answerSignIn: () => signIn,
    answerSignOut: () => signOut,
    nextSignIn: () => (signIn = deferred<SessionUser>()),
    nextSignOut: () => (signOut = deferred<void>()),
  };
}

async function signedIn(clock?: SimulatedClock) {
  const s = startSession(clock);
  s.restore.resolve(ada);
  await s.settle('signedIn');
  return s;
}

describe('session machine', () => {
  it('starts restoring, busy, with no user', () => {
    const { actor, status } = startSession();
    expect(status()).toBe('restoring');
    expect(selectIsBusy(actor.getSnapshot())).toBe(true);
    expect(selectHasSession(actor.getSnapshot())).toBe(false);
  });

  it('becomes signedIn with the user the server still knows', async () => {
    const s = startSession();
    s.restore.resolve(ada);
    await s.settle('signedIn');
    expect(selectUser(s.actor.getSnapshot())).toEqual(ada);
    expect(selectIsBusy(s.actor.getSnapshot())).toBe(false);
    expect(s.toasts).toEqual([]);
  });

  it('becomes signedOut quietly when the server knows nobody', async () => {
    const s = startSession();
    s.restore.resolve(null);
    await s.settle('signedOut');
    expect(selectUser(s.actor.getSnapshot())).toBeNull();
    expect(s.toasts).toEqual([]);
  });

  it('becomes signedOut with an error toast when the restore fails', async () => {
    const s = startSession();
    s.restore.reject(new Error('Could not reach the server.'));
    await s.settle('signedOut');
    expect(s.toasts).toEqual([
      {
        message: 'Could not restore your session: Could not reach the server.',
        toastType: 'error',
      },
    ]);
    expect(selectLastError(s.actor.getSnapshot())).toBe('Could not reach the server.');
  });

  it('signs in locally: signingIn is busy, then signedIn with the server user', async () => {
    const s = startSession();
    s.restore.resolve(null);
    await s.settle('signedOut');
    s.actor.send({
      type: 'session.signIn',
      request: { method: 'local', name: 'Ada', email: 'ada@example.com' },
    });
    expect(s.status()).toBe('signingIn');
    expect(selectIsBusy(s.actor.getSnapshot())).toBe(true);
    expect(s.signInRequests).toEqual([{ method: 'local', name: 'Ada', email: 'ada@example.com' }]);
    s.answerSignIn().resolve(ada);
    await s.settle('signedIn');
    expect(selectUser(s.actor.getSnapshot())).toEqual(ada);
  });

  it('passes a Google result to signIn unchanged', async () => {
    const s = startSession();
    s.restore.resolve(null);
    await s.settle('signedOut');
    s.actor.send({
      type: 'session.signIn',
      request: { method: 'google', flow: 'code', value: 'abc' },
    });
    expect(s.signInRequests).toEqual([{ method: 'google', flow: 'code', value: 'abc' }]);
  });

  it('returns to signedOut with the server message when sign-in fails: inline for the local form, no toast too', async () => {
    const s = startSession();
    s.restore.resolve(null);
    await s.settle('signedOut');
    s.actor.send({
      type: 'session.signIn',
      request: { method: 'local', name: 'A', email: 'a@b.co', passcode: 'x' },
    });
    s.answerSignIn().reject(new Error('Wrong passcode'));
    await s.settle('signedOut');
    // The local form shows the message beside its fields: once, not also as a toast.
    expect(s.toasts).toEqual([]);
    expect(selectLastError(s.actor.getSnapshot())).toBe('Wrong passcode');
    expect(selectUser(s.actor.getSnapshot())).toBeNull();
  });

  it('clears the last error when a new sign-in starts and when it succeeds', async () => {
    const s = startSession();
    s.restore.resolve(null);
    await s.settle('signedOut');
    s.actor.send({
      type: 'session.signIn',
      request: { method: 'local', name: 'A', email: 'a@b.co' },
    });
    s.answerSignIn().reject(new Error('Nope'));
    await s.settle('signedOut');
    s.nextSignIn();
    s.actor.send({
      type: 'session.signIn',
      request: { method: 'local', name: 'A', email: 'a@b.co' },
    });
    expect(selectLastError(s.actor.getSnapshot())).toBeNull();
    s.answerSignIn().resolve(ada);
    await s.settle('signedIn');
    expect(selectLastError(s.actor.getSnapshot())).toBeNull();
  });

  it('ignores a second sign-in while one is running', async () => {
    const s = startSession();
    s.restore.resolve(null);
    await s.settle('signedOut');
    s.actor.send({
      type: 'session.signIn',
      request: { method: 'local', name: 'A', email: 'a@b.co' },
    });
    s.actor.send({
      type: 'session.signIn',
      request: { method: 'local', name: 'B', email: 'b@b.co' },
    });
    expect(s.signInRequests).toHaveLength(1);
  });

  it('signs out: signingOut keeps the user and is busy, then signedOut without one', async () => {
    const s = await signedIn();
    s.actor.send({ type: 'session.signOut' });
    expect(s.status()).toBe('signingOut');
    expect(selectIsBusy(s.actor.getSnapshot())).toBe(true);
    expect(selectHasSession(s.actor.getSnapshot())).toBe(true);
    s.answerSignOut().resolve();
    await s.settle('signedOut');
    expect(selectUser(s.actor.getSnapshot())).toBeNull();
  });

  it('stays signed in with an error toast when the server cannot sign out', async () => {
    const s = await signedIn();
    s.actor.send({ type: 'session.signOut' });
    s.answerSignOut().reject(new Error('Could not reach the server.'));
    await s.settle('signedIn');
    expect(selectUser(s.actor.getSnapshot())).toEqual(ada);
    expect(s.toasts).toEqual([
      { message: 'Could not sign out: Could not reach the server.', toastType: 'error' },
    ]);
  });

  it('gives a sign-out the server never answers up after SIGN_OUT_TIMEOUT: signed in, Sign out offered again', async () => {
    const clock = new SimulatedClock();
    const s = await signedIn(clock);
    s.actor.send({ type: 'session.signOut' });
    clock.increment(SIGN_OUT_TIMEOUT_MS - 1);
    expect(s.status()).toBe('signingOut');
    expect(s.toasts).toEqual([]);
    clock.increment(1);
    expect(s.status()).toBe('signedIn');
    expect(selectIsBusy(s.actor.getSnapshot())).toBe(false);
    expect(selectUser(s.actor.getSnapshot())).toEqual(ada);
    expect(s.toasts).toEqual([
      {
        message: 'Could not sign out: the server did not answer in time. Try again.',
        toastType: 'error',
      },
    ]);
    // The abandoned request is aborted, and its late answer changes nothing.
    expect(s.signOutSignals[0]?.aborted).toBe(true);
    s.answerSignOut().resolve();
    await Promise.resolve();
    expect(s.status()).toBe('signedIn');
    // And the person can try again.
    s.nextSignOut();
    s.actor.send({ type: 'session.signOut' });
    s.answerSignOut().resolve();
    await s.settle('signedOut');
  });

  it('signs out when a request finds the session expired, keeping where the user was', async () => {
    const s = await signedIn();
    // A failed sign-out leaves an error behind; the expiry must not show it on the login form.
    s.actor.send({ type: 'session.signOut' });
    s.answerSignOut().reject(new Error('offline'));
    await s.settle('signedIn');
    s.toasts.length = 0;
    s.actor.send({ type: 'session.expired', redirect: '/history?x=1#y' });
    expect(s.status()).toBe('signedOut');
    expect(selectUser(s.actor.getSnapshot())).toBeNull();
    expect(s.actor.getSnapshot().context.redirect).toBe('/history?x=1#y');
    expect(s.toasts).toEqual([{ message: SESSION_EXPIRED_MESSAGE, toastType: 'warning' }]);
    expect(selectLastError(s.actor.getSnapshot())).toBeNull();
    expect(SESSION_EXPIRED_MESSAGE).toBe('Your session has expired. Please sign in again.');
  });

  it.each([
    ['restoring', () => Promise.resolve(startSession())],
    [
      'signedOut',
      async () => {
        const s = startSession();
        s.restore.resolve(null);
        await s.settle('signedOut');
        return s;
      },
    ],
    [
      'signingIn',
      async () => {
        const s = startSession();
        s.restore.resolve(null);
        await s.settle('signedOut');
        s.actor.send({
          type: 'session.signIn',
          request: { method: 'local', name: 'A', email: 'a@b.co' },
        });
        return s;
      },
    ],
    [
      'signingOut',
      async () => {
        const s = await signedIn();
        s.actor.send({ type: 'session.signOut' });
        return s;
      },
    ],
  ] as const)(
    'ignores session.expired while %s (a 401 there is the answer, not an expiry)',
    async (state, make) => {
      const s = await make();
      s.actor.send({ type: 'session.expired', redirect: '/x' });
      expect(s.status()).toBe(state);
      expect(s.toasts).toEqual([]);
    },
  );

  it('forgets the expiry redirect once the user signs in again', async () => {
    const s = await signedIn();
    s.actor.send({ type: 'session.expired', redirect: '/hold' });
    s.actor.send({
      type: 'session.signIn',
      request: { method: 'local', name: 'Ada', email: 'ada@example.com' },
    });
    s.answerSignIn().resolve(ada);
    await s.settle('signedIn');
    expect(s.actor.getSnapshot().context.redirect).toBeNull();
  });

  it('ignores sign-out while signed out and sign-in while signed in', async () => {
    const s = await signedIn();
    s.actor.send({
      type: 'session.signIn',
      request: { method: 'local', name: 'B', email: 'b@b.co' },
    });
    expect(s.status()).toBe('signedIn');
    expect(s.signInRequests).toEqual([]);
    s.actor.send({ type: 'session.expired', redirect: null });
    s.actor.send({ type: 'session.signOut' });
    expect(s.status()).toBe('signedOut');
  });
});
