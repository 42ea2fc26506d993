import { describe, expect, it } from 'vitest';
import { selectCallEndReason, selectCallStatus } from '../../../src/machines/call.selectors';
import { remoteFromAddress } from '../../../src/machines/call.types';
import {
  selectCall,
  selectCalls,
  selectDeviceBusy,
  selectDeviceError,
  selectDeviceReady,
  selectDeviceStatus,
  selectIsFollower,
} from '../../../src/machines/device.selectors';
import { deviceHarness } from './deviceHarness';
import { settle } from './syncModelSupport';
import {
  RECONNECT_TIMEOUT_MS,
  TOKEN_EXPIRY_MS,
  UNREGISTER_TIMEOUT_MS,
  renewBackoffMs,
} from '../../../src/machines/device.setup';

/** An owner tab that got its token and was registered by the SDK. */
async function registeredDevice() {
  const d = deviceHarness();
  d.pending.registrationToken.shift()!.resolve('token-1');
  await settle();
  d.actor.send({ type: 'device.registered' });
  d.asked.length = 0;
  return d;
}

const status = (d: ReturnType<typeof deviceHarness>) => selectDeviceStatus(d.snap());

describe('device machine: registration', () => {
  it('gets a voice token, registers with it, and is ready once the SDK says registered', async () => {
    const d = deviceHarness();
    expect(status(d)).toBe('starting');
    expect(selectDeviceBusy(d.snap())).toBe(true);
    d.pending.registrationToken.shift()!.resolve('token-1');
    await settle();
    expect(status(d)).toBe('registering');
    expect(d.asked).toEqual([['register', { token: 'token-1' }]]);
    expect(selectDeviceReady(d.snap())).toBe(false);
    d.actor.send({ type: 'device.registered' });
    expect(selectDeviceReady(d.snap())).toBe(true);
    expect(selectDeviceBusy(d.snap())).toBe(false);
  });

  it('shows why when no token can be had, and retries with a fresh one', async () => {
    const d = deviceHarness();
    d.pending.registrationToken.shift()!.reject(new Error('server said 503'));
    await settle();
    expect(status(d)).toBe('error');
    expect(selectDeviceError(d.snap())).toEqual({
      code: null,
      message: 'Could not get a voice token: server said 503.',
    });
    d.actor.send({ type: 'device.retry' });
    expect(status(d)).toBe('starting');
    d.pending.registrationToken.shift()!.resolve('token-2');
    await settle();
    expect(d.asked).toEqual([['register', { token: 'token-2' }]]);
  });

  it.each([
    [20101, 'Your voice sign-in was refused (invalid token). Try again.'],
    [20151, 'You are not allowed to take calls here.'],
  ])(
    'stops on a refused registration (%i) with the code and a readable message',
    async (code, message) => {
      const d = deviceHarness();
      d.pending.registrationToken.shift()!.resolve('bad');
      await settle();
      d.actor.send({ type: 'device.error', code, message: 'AccessTokenInvalid' });
      expect(status(d)).toBe('error');
      expect(selectDeviceError(d.snap())).toEqual({ code, message });
    },
  );

  it('fails when the service closes before registering', async () => {
    const d = deviceHarness();
    d.pending.registrationToken.shift()!.resolve('t');
    await settle();
    d.actor.send({ type: 'device.unregistered' });
    expect(status(d)).toBe('error');
    expect(selectDeviceError(d.snap())?.message).toMatch(/did not register/);
  });

  it('an expired token while registered stops it with the SDK code 20104', async () => {
    const d = await registeredDevice();
    d.actor.send({ type: 'device.error', code: 20104, message: 'AccessTokenExpired' });
    expect(status(d)).toBe('error');
    expect(selectDeviceError(d.snap())).toEqual({
      code: 20104,
      message: 'Your voice sign-in expired. Try again.',
    });
  });

  it('stays ready on an error that does not touch the registration, and shows it', async () => {
    const d = await registeredDevice();
    d.actor.send({ type: 'device.error', code: 31401, message: 'Permission denied' });
    expect(selectDeviceReady(d.snap())).toBe(true);
    expect(selectDeviceError(d.snap())?.code).toBe(31401);
    expect(selectDeviceError(d.snap())?.message).toMatch(/blocked the microphone/);
  });
});

describe('device machine: connection lost', () => {
  it.each([
    [
      'device.error 53001',
      { type: 'device.error', code: 53001, message: 'Signaling lost' } as const,
    ],
    ['device.error 31005', { type: 'device.error', code: 31005, message: 'Gateway' } as const],
    ['device.unregistered', { type: 'device.unregistered' } as const],
  ])('goes reconnecting on %s and back to ready when the SDK registers again', async (_, event) => {
    const d = await registeredDevice();
    d.actor.send(event);
    expect(status(d)).toBe('reconnecting');
    expect(selectDeviceReady(d.snap())).toBe(false);
    d.actor.send({ type: 'device.registered' });
    expect(status(d)).toBe('registered');
    expect(selectDeviceError(d.snap())).toBeNull();
    expect(d.asked).toEqual([]);
  });

  it('gives up after RECONNECT_TIMEOUT with a message, then still recovers if the SDK does', async () => {
    const d = await registeredDevice();
    d.actor.send({ type: 'device.error', code: 53001, message: 'lost' });
    d.clock.increment(RECONNECT_TIMEOUT_MS - 1);
    expect(status(d)).toBe('reconnecting');
    d.clock.increment(1);
    expect(status(d)).toBe('error');
    expect(selectDeviceError(d.snap())).toEqual({
      code: 53001,
      message: 'Lost the connection to the phone service. Try again.',
    });
    d.actor.send({ type: 'device.registered' });
    expect(selectDeviceReady(d.snap())).toBe(true);
  });

  it('a refused token while reconnecting is an error, not more waiting', async () => {
    const d = await registeredDevice();
    d.actor.send({ type: 'device.unregistered' });
    d.actor.send({ type: 'device.error', code: 31009, message: 'Transport unavailable' });
    expect(status(d)).toBe('reconnecting');
    d.actor.send({ type: 'device.error', code: 20104, message: 'expired' });
    expect(status(d)).toBe('error');
  });
});

describe('device machine: back from the background', () => {
  it('registers again when the SDK lost its registration silently', async () => {
    const d = await registeredDevice();
    d.actor.send({ type: 'page.visible' });
    expect(status(d)).toBe('checking');
    d.pending.checkRegistration.shift()!.resolve('unregistered');
    await settle();
    expect(status(d)).toBe('starting');
    d.pending.registrationToken.shift()!.resolve('token-2');
    await settle();
    expect(d.asked).toEqual([['register', { token: 'token-2' }]]);
    d.actor.send({ type: 'device.registered' });
    expect(selectDeviceReady(d.snap())).toBe(true);
  });

  it('does nothing more when it is still registered', async () => {
    const d = await registeredDevice();
    d.actor.send({ type: 'page.visible' });
    d.pending.checkRegistration.shift()!.resolve('registered');
    await settle();
    expect(status(d)).toBe('registered');
    expect(d.pending.registrationToken).toHaveLength(0);
    expect(d.asked).toEqual([]);
  });

  it('registers again when the check itself fails', async () => {
    const d = await registeredDevice();
    d.actor.send({ type: 'page.visible' });
    d.pending.checkRegistration.shift()!.reject(new Error('no device'));
    await settle();
    expect(status(d)).toBe('starting');
  });
});

describe('device machine: token renewal', () => {
  it('renews before expiry and hands the adapter the new token', async () => {
    const d = await registeredDevice();
    d.actor.send({ type: 'device.tokenWillExpire' });
    d.pending.renewalToken.shift()!.resolve('token-2');
    await settle();
    expect(d.asked).toEqual([['updateToken', { token: 'token-2' }]]);
    expect(d.snap().matches({ owner: { token: 'valid' } })).toBe(true);
    expect(selectDeviceReady(d.snap())).toBe(true);
  });

  it('retries failed renewals with growing backoff and succeeds before expiry', async () => {
    const d = await registeredDevice();
    d.actor.send({ type: 'device.tokenWillExpire' });
    d.pending.renewalToken.shift()!.reject(new Error('503'));
    await settle();
    d.clock.increment(renewBackoffMs(1) - 1);
    expect(d.pending.renewalToken).toHaveLength(0);
    d.clock.increment(1);
    expect(d.pending.renewalToken).toHaveLength(1);
    d.pending.renewalToken.shift()!.reject(new Error('503'));
    await settle();
    d.clock.increment(renewBackoffMs(2) - 1);
    expect(d.pending.renewalToken).toHaveLength(0);
    d.clock.increment(1);
    d.pending.renewalToken.shift()!.resolve('token-3');
    await settle();
    expect(d.asked).toEqual([['updateToken', { token: 'token-3' }]]);
    expect(selectDeviceError(d.snap())).toBeNull();
  });

  it('says so when the token cannot be renewed before it expires, and retries on request', async () => {
    const d = await registeredDevice();
    d.actor.send({ type: 'device.tokenWillExpire' });
    for (let elapsed = 0; ;) {
      const next = d.pending.renewalToken.shift();
      if (next === undefined) break;
      next.reject(new Error('503'));
      await settle();
      const wait = renewBackoffMs(d.snap().context.renewAttempts);
      if (elapsed + wait >= TOKEN_EXPIRY_MS) break;
      d.clock.increment(wait);
      elapsed += wait;
    }
    expect(d.snap().matches({ owner: { token: 'expired' } })).toBe(false);
    d.clock.increment(TOKEN_EXPIRY_MS);
    expect(d.snap().matches({ owner: { token: 'expired' } })).toBe(true);
    expect(selectDeviceError(d.snap())).toEqual({
      code: 20104,
      message: 'Could not renew your voice sign-in before it expired. Try again.',
    });
    d.actor.send({ type: 'device.retry' });
    d.pending.renewalToken.shift()!.resolve('token-9');
    await settle();
    expect(d.asked).toEqual([['updateToken', { token: 'token-9' }]]);
    expect(selectDeviceError(d.snap())).toBeNull();
  });

  it('backs off 1 s, 2 s, then 4 s', () => {
    expect([1, 2, 3, 4, 9].map(renewBackoffMs)).toEqual([1000, 2000, 4000, 4000, 4000]);
  });
});

describe('device machine: tab ownership', () => {
  it('a follower registers nothing until it takes over', async () => {
    const d = deviceHarness({ owner: false });
    expect(selectIsFollower(d.snap())).toBe(true);
    expect(d.pending.registrationToken).toHaveLength(0);
    d.actor.send({ type: 'device.takeOver' });
    expect(status(d)).toBe('acquiring');
    d.pending.acquireLock.shift()!.resolve();
    await settle();
    expect(status(d)).toBe('starting');
    expect(d.pending.registrationToken).toHaveLength(1);
  });

  it('stays a follower, saying why, when the lock is not granted', async () => {
    const d = deviceHarness({ owner: false });
    d.actor.send({ type: 'device.takeOver' });
    d.pending.acquireLock.shift()!.reject(new Error('timed out'));
    await settle();
    expect(status(d)).toBe('follower');
    expect(selectDeviceError(d.snap())?.message).toBe(
      'Could not take the phone over from the other tab: timed out.',
    );
  });

  it('releases to another tab: hangs up, unregisters, then releases the lock', async () => {
    const d = await registeredDevice();
    d.actor.send({ type: 'device.dial', to: remoteFromAddress('client:bob'), params: {} });
    d.asked.length = 0;
    d.actor.send({ type: 'device.release' });
    expect(status(d)).toBe('releasing');
    // The hang-up reaches the call actor just after the device's own step, so order is free.
    expect(d.asked).toHaveLength(2);
    expect(d.asked).toEqual(
      expect.arrayContaining([
        ['hangUpCall', { callId: 'out-1' }],
        ['unregister', null],
      ]),
    );
    expect(selectCallEndReason(selectCall('out-1')(d.snap())!.getSnapshot())).toBe('hungUpByYou');
    d.actor.send({ type: 'device.unregistered' });
    expect(status(d)).toBe('follower');
    expect(d.asked.at(-1)).toEqual(['releaseLock', null]);
  });

  it('releases the lock anyway when the unregister is never confirmed', async () => {
    const d = await registeredDevice();
    d.actor.send({ type: 'device.signOut' });
    d.clock.increment(UNREGISTER_TIMEOUT_MS - 1);
    expect(status(d)).toBe('signingOut');
    d.clock.increment(1);
    expect(status(d)).toBe('signedOut');
    expect(d.snap().status).toBe('done');
    expect(d.asked).toEqual([
      ['unregister', null],
      ['releaseLock', null],
    ]);
  });

  it('a sign-out during a release ends signed out, unregistering again', async () => {
    const d = await registeredDevice();
    d.actor.send({ type: 'device.release' });
    d.actor.send({ type: 'device.signOut' });
    d.actor.send({ type: 'device.error', code: 31009, message: 'offline' });
    expect(status(d)).toBe('signedOut');
  });

  it('a follower signs out without touching the lock', () => {
    const d = deviceHarness({ owner: false });
    d.actor.send({ type: 'device.signOut' });
    expect(status(d)).toBe('signedOut');
    expect(d.asked).toEqual([]);
  });
});

describe('device machine: calls', () => {
  it('puts an incoming call in context as its own actor, and forwards its SDK events', async () => {
    const d = await registeredDevice();
    d.actor.send({
      type: 'device.incoming',
      callId: 'CA9',
      from: 'client:carol',
      to: 'client:alice',
      params: { displayName: 'Carol' },
    });
    const call = selectCall('CA9')(d.snap())!;
    expect(selectCallStatus(call.getSnapshot())).toBe('incoming');
    expect(call.getSnapshot().context.remote).toEqual({
      identity: 'carol',
      number: null,
      displayName: 'Carol',
    });
    expect(call.getSnapshot().context.startedAt).toBe(d.clock.now());
    d.actor.send({ type: 'device.call', callId: 'CA9', event: { type: 'call.cancelled' } });
    expect(selectCallEndReason(call.getSnapshot())).toBe('cancelled');
    // A late SDK event for the ended call, or one for a call we never had, is dropped.
    d.actor.send({ type: 'device.call', callId: 'CA9', event: { type: 'call.disconnected' } });
    d.actor.send({ type: 'device.call', callId: 'nope', event: { type: 'call.accepted' } });
    expect(selectCallEndReason(call.getSnapshot())).toBe('cancelled');
  });

  it('keeps an ended call until the UI dismisses it, and refuses to dismiss a live one', async () => {
    const d = await registeredDevice();
    d.actor.send({ type: 'device.dial', to: remoteFromAddress('+15005550006'), params: {} });
    d.actor.send({ type: 'device.dismissCall', callId: 'out-1' });
    expect(Object.keys(selectCalls(d.snap()))).toEqual(['out-1']);
    selectCall('out-1')(d.snap())!.send({ type: 'call.hangUp' });
    d.actor.send({ type: 'device.dismissCall', callId: 'out-1' });
    expect(selectCalls(d.snap())).toEqual({});
  });

  it('dials only when ready, naming each call out-<n>', async () => {
    const d = deviceHarness();
    d.actor.send({ type: 'device.dial', to: remoteFromAddress('client:bob'), params: {} });
    expect(selectCalls(d.snap())).toEqual({});
    d.pending.registrationToken.shift()!.resolve('t');
    await settle();
    d.actor.send({ type: 'device.registered' });
    d.actor.send({ type: 'device.dial', to: remoteFromAddress('client:bob'), params: { a: '1' } });
    d.actor.send({ type: 'device.dial', to: remoteFromAddress('+15005550006'), params: {} });
    expect(d.asked.filter(([name]) => name === 'placeCall')).toEqual([
      ['placeCall', { callId: 'out-1', to: 'client:bob', params: { a: '1' } }],
      ['placeCall', { callId: 'out-2', to: '+15005550006', params: {} }],
    ]);
  });
});
