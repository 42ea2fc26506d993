/**
 * Composition of the phone in the browser: the device machine provided with the real Voice SDK
 * (loaded by sdk.ts), the voice token from the server, the tab lock, and the SDK's events turned
 * into machine events. The only place that touches an SDK `Device` or `Call`.
 */
import { createActor, fromPromise, toPromise, type ActorRefFrom } from 'xstate';
import { callMachine } from '../../machines/call.machine';
import { selectCallSummary, type CallSummary } from '../../machines/call.selectors';
import { deviceMachine } from '../../machines/device.machine';
import {
  selectCalls,
  selectDeviceStatus,
  type DeviceStatus,
} from '../../machines/device.selectors';
import { createAudio, type AudioControls } from './audio';
import { watchQuality } from './quality';
import { createCallMirror, type CallMirror, type MirrorChannel } from './mirror';
import { heldEvent, serverSentence } from './server-messages';
import { loadVoiceSdk, type VoiceSdkModule } from './sdk';
import { createTabLock, type TabLock } from './tab-lock';
import type { VoiceCredentials } from '../../contracts/api';
import type { QualityReport } from '../../contracts/records/call-quality';
import { CALL_PARAMETERS, PLACED_CALL_PARAMETERS } from '../../contracts/call-parameters';
import { randomHex } from '../../contracts/random';
import { personOfClientAddress } from '../../contracts/voice-identity';
import type { CallActor } from '../../machines/device.setup';
import type { CallAdapterEvent, CallControlInput } from '../../machines/call.setup';

export type DeviceActor = ActorRefFrom<typeof deviceMachine>;

/** `GET /api/voice/token`. */

export interface VoiceRuntimeDeps {
  identity: string;
  fetchCredentials: () => Promise<VoiceCredentials>;
  /** `GET /api/voice/registration`: whether the service can ring this person now. */
  fetchRegistered: () => Promise<boolean>;
  /** The provided clock (epoch ms). */
  now: () => number;
  /** A colleague's display name, for incoming calls. */
  nameOf?: (identity: string) => string | null;
  /**
   * Asks the server to hold, resume, park or transfer the call (src/app/mutators/calls.ts); rejects
   * with an Error whose message a person can read.
   */
  controlCall?: (
    callSid: string,
    action: CallControlInput['action'],
    transfer?: CallControlInput['transfer'],
  ) => Promise<void>;
  /**
   * Sends a finished call's quality, as this browser measured it, to the server for its history row
   * (`POST /api/calls/{callSid}/quality`); called once per call that had audio.
   */
  reportQuality?: (callSid: string, report: QualityReport) => Promise<void>;
  /** Web Locks, or null where the browser has none (then every tab is the owner). */
  locks?: LockManager | null;
  /** Opens the channel the person's tabs share (BroadcastChannel), or null where there is none. */
  openChannel?: (name: string) => MirrorChannel | null;
}

export interface VoiceRuntime {
  device: DeviceActor;
  /** Places a call to a person (`client:<identity>`) or whatever was typed (a name, an email). */
  dial: (to: string, displayName?: string | null) => void;
  /** The calls of the tab holding the phone, seen from this tab while it follows. */
  mirror: CallMirror;
  /** Microphone, speaker and ringtone choices, and a test tone. */
  audio: AudioControls;
  /** Applies a command to one of this tab's calls, e.g. from a notification's button. */
  command: (callId: string, command: Parameters<CallMirror['command']>[1]) => void;
  /** Signs the phone out (calls hung up, unregistered); resolves once it has (at most 5 s). */
  leave(): Promise<void>;
  stop(): void;
}

/** The SDK's TransportError: a message could not be sent because no socket is open. */
const NO_TRANSPORT = 31009;

/** A fresh id for a call this browser places (call-parameters.ts ATTEMPT_ID: 32 hex digits). */
function attemptId(): string {
  return randomHex(16);
}

/** Whether the SDK Device says it is registered (its `state` is typed as its own enum). */
const isRegistered = (device: SdkDevice | null): boolean => String(device?.state) === 'registered';

/** Statuses in which this tab does not hold the phone. */
const NOT_OWNER: readonly DeviceStatus[] = ['follower', 'acquiring', 'releasing', 'signedOut'];

type SdkDevice = InstanceType<VoiceSdkModule['Device']>;
type SdkCall = InstanceType<VoiceSdkModule['Call']>;
/** The SDK's EventEmitter listener type. */
type Listener = Parameters<SdkDevice['on']>[1];

export async function startVoiceRuntime(deps: VoiceRuntimeDeps): Promise<VoiceRuntime> {
  let sdk: SdkDevice | null = null;
  let credentials: VoiceCredentials | null = null;
  const calls = new Map<string, SdkCall>();
  const listeners: (() => void)[] = [];
  /** Set while a renewed token is handed to the SDK (see the `updateToken` action). */
  let updatingToken = false;
  const audio = createAudio(() => ({
    device: sdk,
    // No credentials yet: nothing to apply to. Credentials without sounds: the devices still are.
    sounds: credentials ? ((credentials.device.sounds ?? {}) as Record<string, string>) : undefined,
  }));
  /** The current SDK Device's own listeners, removed when it is dropped. */
  const deviceListeners: (() => void)[] = [];

  /** Destroys the SDK Device (its socket and calls) so the next registration starts afresh. */
  function dropSdk(): void {
    const old = sdk;
    sdk = null;
    for (const off of deviceListeners.splice(0)) off();
    old?.destroy();
    audio.deviceReplaced();
  }
  const lock: TabLock = createTabLock(
    `switchboard-phone:${deps.identity}`,
    deps.locks ?? null,
    () => actor.send({ type: 'device.release' }),
  );
  const owner = await lock.tryAcquire();

  const fail = (code: number, message: string): void => {
    actor.send({ type: 'device.error', code, message });
  };

  function watchCall(callId: string, call: SdkCall): void {
    calls.set(callId, call);
    const send = (event: CallAdapterEvent) => actor.send({ type: 'device.call', callId, event });
    const on = (name: string, handler: Listener) => {
      call.on(name, handler);
      listeners.push(() => call.off(name, handler));
    };
    /** The CallSid, once the SDK knows it (from `ringing`, or the answer of a call nothing rang first). */
    const sidKnown = (): { sid?: string } =>
      call.parameters.CallSid ? { sid: call.parameters.CallSid } : {};
    on('ringing', () => send({ type: 'call.ringing', ...sidKnown() }));
    // An outgoing call answered at once (a pick-up joins its room, no `<Dial>` rang) learns its
    // CallSid from the answer itself.
    on('accept', () => send({ type: 'call.accepted', ...sidKnown() }));
    on('cancel', () => send({ type: 'call.cancelled' }));
    on('reconnecting', () => send({ type: 'call.reconnecting' }));
    on('reconnected', () => send({ type: 'call.reconnected' }));
    const quality = watchQuality(on, send);
    on('error', (error: { code?: number; message?: string }) =>
      send({
        type: 'call.error',
        code: error.code ?? 31000,
        message: serverSentence(error.message ?? ''),
      }),
    );
    // A call the SDK gives up on itself (the microphone refused, media failed) emits `disconnect`
    // and only then, in the same turn, the `error` saying why. The machine reads the end reason
    // from the last error, so the disconnect is passed on once this turn is over.
    on('disconnect', () => {
      calls.delete(callId);
      const report = quality.report(String(call.codec ?? ''));
      const callSid = call.parameters.CallSid;
      if (report.samples > 0 && callSid && deps.reportQuality)
        deps.reportQuality(callSid, report).catch(() => undefined);
      queueMicrotask(() => send({ type: 'call.disconnected' }));
      audio.callEnded();
    });
    on('reject', () => calls.delete(callId));
    // The server's word about the other side: they put us on hold (or parked us), or came back.
    on('messageReceived', (message: { content?: unknown }) => {
      const event = heldEvent(message.content);
      if (event) send(event);
    });
  }

  /**
   * The SDK Device to register with `token`. A registered one keeps its socket and calls and takes
   * the new token; any other is replaced: it may still be retrying with a token the service refused
   * (and would report that refusal again in the middle of the new registration).
   */
  async function ensureDevice(token: string): Promise<SdkDevice> {
    if (sdk && isRegistered(sdk)) {
      sdk.updateToken(token);
      return sdk;
    }
    dropSdk();
    if (!credentials) throw new Error('No voice credentials');
    const { Device } = await loadVoiceSdk(credentials.signalling.url);
    const device = new Device(token, credentials.device);
    sdk = device;
    const on = (name: string, handler: Listener) => {
      device.on(name, handler);
      deviceListeners.push(() => device.off(name, handler));
    };
    on('registered', () => actor.send({ type: 'device.registered' }));
    on('unregistered', () => actor.send({ type: 'device.unregistered' }));
    on('tokenWillExpire', () => actor.send({ type: 'device.tokenWillExpire' }));
    on('error', (error: { code?: number; message?: string }) => {
      if (updatingToken && error.code === NO_TRANSPORT) return;
      fail(error.code ?? 31000, error.message ?? '');
    });
    void audio.applyToSdk();
    on('incoming', (call: SdkCall) => {
      const callId = call.parameters.CallSid ?? `in-${deps.now()}`;
      const from = call.parameters.From ?? '';
      const params: Record<string, string> = {};
      call.customParameters.forEach((value, key) => {
        params[key] = value;
      });
      // A colleague's address carries their Voice identity: mapped back to their email.
      const identity = personOfClientAddress(from);
      const name =
        (identity === null ? null : (deps.nameOf?.(identity) ?? null)) ??
        params[CALL_PARAMETERS.callerName] ??
        null;
      if (name !== null) params.displayName = name;
      watchCall(callId, call);
      actor.send({
        type: 'device.incoming',
        callId,
        from: identity === null ? from : `client:${identity}`,
        to: call.parameters.To ?? '',
        params,
      });
    });
    return device;
  }

  const providedCall = callMachine.provide({
    actors: {
      controlCall: fromPromise<void, CallControlInput>(async ({ input }) => {
        const callSid = calls.get(input.callId)?.parameters.CallSid;
        if (!callSid) throw new Error('This call is not connected yet.');
        if (!deps.controlCall) throw new Error('Hold and park are not available here.');
        await deps.controlCall(
          callSid,
          input.action,
          input.action === 'transfer' ? input.transfer : undefined,
        );
      }),
    },
    actions: {
      placeCall: (_, { callId, to, params }) => {
        if (!sdk) {
          actor.send({
            type: 'device.call',
            callId,
            event: { type: 'call.error', code: 31000, message: 'The phone is not ready.' },
          });
          actor.send({ type: 'device.call', callId, event: { type: 'call.disconnected' } });
          return;
        }
        sdk.connect({ params: { ...params, To: to } }).then(
          (call) => watchCall(callId, call),
          (error?: { code?: number; message?: string }) => {
            actor.send({
              type: 'device.call',
              callId,
              event: {
                type: 'call.error',
                code: error?.code ?? 31000,
                message: serverSentence(error?.message ?? 'The call could not start.'),
              },
            });
            actor.send({ type: 'device.call', callId, event: { type: 'call.disconnected' } });
          },
        );
      },
      acceptCall: (_, { callId }) => calls.get(callId)?.accept(),
      rejectCall: (_, { callId }) => calls.get(callId)?.reject(),
      ignoreCall: (_, { callId }) => calls.get(callId)?.ignore(),
      hangUpCall: (_, { callId }) => calls.get(callId)?.disconnect(),
      setMuted: (_, { callId, muted }) => calls.get(callId)?.mute(muted),
      sendDigits: (_, { callId, digits }) => calls.get(callId)?.sendDigits(digits),
    },
  });

  const provided = deviceMachine.provide({
    actors: {
      call: providedCall,
      fetchVoiceToken: fromPromise(async () => {
        credentials = await deps.fetchCredentials();
        return credentials.token;
      }),
      // The SDK can believe it is registered on a socket that died while the tab was in the
      // background; the service knows. A Device the service lost is dropped, so registering again
      // opens a new socket instead of talking into the dead one.
      checkRegistration: fromPromise(async () => {
        const here = isRegistered(sdk);
        const there = await deps.fetchRegistered();
        if (here && there) return 'registered' as const;
        dropSdk();
        return 'unregistered' as const;
      }),
      acquireLock: fromPromise(() => lock.takeOver()),
    },
    actions: {
      register: (_, { token }) => {
        ensureDevice(token)
          .then((device) => {
            if (!isRegistered(device)) return device.register();
            // Still registered (the check could not ask the service): the new token is enough. Said
            // in a task of its own, as the SDK says every registration.
            setTimeout(() => actor.send({ type: 'device.registered' }), 0);
          })
          // register() rejects with nothing when the SDK emits `unregistered` instead (the machine
          // has that event already), and with an error otherwise.
          .catch((error?: { code?: number; message?: string }) => {
            if (error) fail(error.code ?? 31000, error.message ?? 'The phone could not start.');
          });
      },
      updateToken: (_, { token }) => {
        // Between sockets the SDK keeps the token for its next connection, and also reports 31009
        // (no transport to send it on) as a Device error: that is not a problem, so it is not passed on.
        updatingToken = true;
        try {
          sdk?.updateToken(token);
        } finally {
          updatingToken = false;
        }
      },
      unregister: () => {
        // A Device that is not registered has nothing for the service to confirm: leaving (sign-out,
        // hand-over) goes on at once instead of waiting out UNREGISTER_TIMEOUT.
        if (!sdk || !isRegistered(sdk)) {
          queueMicrotask(() => actor.send({ type: 'device.unregistered' }));
          return;
        }
        sdk.unregister().catch(() => undefined);
      },
      releaseLock: () => lock.release(),
    },
  });

  const actor = createActor(provided, { input: { owner, now: deps.now }, systemId: 'phone' });

  const isOwner = () => !NOT_OWNER.includes(selectDeviceStatus(actor.getSnapshot()));
  const summaries = (): CallSummary[] =>
    Object.values(selectCalls(actor.getSnapshot())).map((call) =>
      selectCallSummary(call.getSnapshot()),
    );
  const command: VoiceRuntime['command'] = (callId, event) => {
    selectCalls(actor.getSnapshot())[callId]?.send(event);
  };
  const mirror = createCallMirror({
    channel: deps.openChannel?.(`switchboard-phone:${deps.identity}`) ?? null,
    isOwner,
    current: summaries,
    onCommand: command,
  });
  // Every change of this tab's calls (or of who holds the phone) goes to the person's other tabs.
  const watched = new Map<CallActor, { unsubscribe(): void }>();
  const share = () => {
    const calls = Object.values(selectCalls(actor.getSnapshot()));
    for (const [call, subscription] of watched)
      if (!calls.includes(call)) {
        subscription.unsubscribe();
        watched.delete(call);
      }
    for (const call of calls) if (!watched.has(call)) watched.set(call, call.subscribe(share));
    if (isOwner()) mirror.publish(summaries());
    else mirror.follow();
    // A follower takes the phone by itself when the tab holding it closes or lets go.
    if (selectDeviceStatus(actor.getSnapshot()) === 'follower')
      lock.whenFree(() => actor.send({ type: 'device.takeOver' }));
  };
  const deviceWatch = actor.subscribe(share);
  actor.start();
  share();

  return {
    device: actor,
    dial(to, displayName = null) {
      const identity = to.startsWith('client:') ? to.slice('client:'.length) : null;
      actor.send({
        type: 'device.dial',
        to: {
          identity,
          number: identity === null ? to : null,
          displayName,
        },
        params: { [PLACED_CALL_PARAMETERS.attempt]: attemptId() },
      });
    },
    mirror,
    command,
    audio: audio.controls,
    async leave() {
      actor.send({ type: 'device.signOut' });
      // Settles once the machine is done (signedOut is final), at once when it already is.
      await toPromise(actor);
    },
    stop() {
      mirror.stop();
      deviceWatch.unsubscribe();
      for (const subscription of watched.values()) subscription.unsubscribe();
      watched.clear();
      if (actor.getSnapshot().status === 'active') actor.send({ type: 'device.signOut' });
      for (const off of listeners.splice(0)) off();
      dropSdk();
      lock.release();
      actor.stop();
    },
  };
}
