/**
 * The signed-in person's phone: loads the Voice SDK (its own chunk), takes the tab lock, registers,
 * keeps the audio choices of their settings applied, answers the incoming-call notification's
 * buttons, and re-checks the registration when the tab comes back to the foreground (a known SDK
 * problem loses it in background tabs). Signing out hangs up and unregisters first; a sign-out
 * that did not happen starts the phone again.
 */
import { toPromise } from 'xstate';
import type { Settings } from '../contracts/records/settings';
import type { ApiClient } from '../io/api/client';
import type { VoiceRuntime, VoiceRuntimeDeps } from '../io/voice/client';
import { onNotificationAction, phoneWorker } from '../io/voice/notifications';
import { API } from '../contracts/api';
import { selectCalls } from '../machines/device.selectors';
import { callControls, reportCallQuality } from './mutators/calls';
import type { ToastActor } from '../machines/toast.machine';
import type { AudioPreferences } from '../io/voice/audio';

/** Starts the phone's runtime; tests pass a fake, the browser loads the SDK's chunk. */
export type StartVoice = (deps: VoiceRuntimeDeps) => Promise<VoiceRuntime>;

export const startBrowserVoice: StartVoice = async (deps) => {
  const { startVoiceRuntime } = await import('../io/voice/client');
  return startVoiceRuntime(deps);
};

export interface PhoneHandle {
  /** The running phone; null while it starts (or when it could not). */
  runtime: VoiceRuntime | null;
  /** Why the phone could not start, or null. */
  problem: string | null;
}

export interface Phone {
  get(): PhoneHandle;
  /** The person's settings as they are now (the audio choices are applied from them). */
  useSettings(settings: Settings | null): void;
  /** Signing out: calls hung up and the phone unregistered (resolves once it is, at most 5 s). */
  leave(): Promise<void>;
  /** A sign-out that did not happen: the phone that signed out starts again. */
  rejoin(): void;
  stop(): void;
}

/** The audio choices alone, as the phone applies them. */
export function audioPreferencesOf(settings: Settings): AudioPreferences {
  return {
    microphoneId: settings.microphoneId,
    speakerId: settings.speakerId,
    ringtoneId: settings.ringtoneId,
    ringtoneVolume: settings.ringtoneVolume,
  };
}

export interface PhoneDeps {
  identity: string;
  api: ApiClient;
  toast: ToastActor;
  start?: StartVoice;
  /** The page, for the foreground re-check; none in tests. */
  doc?: Document | null;
  /** Called whenever {@link Phone.get} changes. */
  onChange: () => void;
}

export function startPhone({
  identity,
  api,
  toast,
  start = startBrowserVoice,
  doc = typeof document === 'undefined' ? null : document,
  onChange,
}: PhoneDeps): Phone {
  let handle: PhoneHandle = { runtime: null, problem: null };
  let present = true;
  let stopped = false;
  /** Counts starts, so a start that resolves after another began (or after stop) is let go. */
  let round = 0;
  let prefs: string | null = null;
  let applied: { runtime: VoiceRuntime; prefs: string } | null = null;
  let offNotifications: (() => void) | null = null;

  const set = (next: PhoneHandle) => {
    handle = next;
    onChange();
  };

  /** Puts the person's audio choices on the phone, once per runtime and change. */
  function applyAudio(): void {
    const runtime = handle.runtime;
    if (!runtime || prefs === null) return;
    if (applied?.runtime === runtime && applied.prefs === prefs) return;
    applied = { runtime, prefs };
    const current = applied;
    void runtime.audio.apply(JSON.parse(prefs) as AudioPreferences).then((problems) => {
      if (applied !== current) return;
      for (const message of problems)
        toast.send({ type: 'toast.show', message, toastType: 'warning' });
    });
  }

  const onVisible = () => {
    if (doc?.visibilityState === 'visible') handle.runtime?.device.send({ type: 'page.visible' });
  };

  function launch(): void {
    round += 1;
    const mine = round;
    start({
      identity,
      fetchCredentials: () => api.call(API.voiceToken),
      fetchRegistered: async () => (await api.call(API.voiceRegistration)).registered,
      controlCall: callControls(api),
      reportQuality: (sid, report) => reportCallQuality(api, sid, report),
      now: () => Date.now(),
      locks: typeof navigator !== 'undefined' && 'locks' in navigator ? navigator.locks : null,
      openChannel: (name) =>
        typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(name),
    }).then(
      (runtime) => {
        if (stopped || mine !== round) {
          runtime.stop();
          return;
        }
        set({ runtime, problem: null });
        // Accept and Reject on an incoming call's notification act on the call in this tab.
        void phoneWorker();
        offNotifications = onNotificationAction((callId, action) => {
          if (!(callId in selectCalls(runtime.device.getSnapshot()))) return false;
          if (action !== 'show')
            runtime.command(callId, { type: action === 'accept' ? 'call.accept' : 'call.reject' });
          return true;
        });
        applyAudio();
        // Signed out while it started: no call may ring in a browser whose person has left.
        if (!present) void runtime.leave();
      },
      (error: unknown) => {
        if (stopped || mine !== round) return;
        set({
          runtime: null,
          problem: `The phone could not start: ${error instanceof Error ? error.message : String(error)}`,
        });
      },
    );
  }

  function halt(): void {
    offNotifications?.();
    offNotifications = null;
    handle.runtime?.stop();
    applied = null;
  }

  doc?.addEventListener('visibilitychange', onVisible);
  launch();

  return {
    get: () => handle,
    useSettings(settings) {
      prefs = settings === null ? null : JSON.stringify(audioPreferencesOf(settings));
      applyAudio();
    },
    async leave() {
      present = false;
      await handle.runtime?.leave();
    },
    rejoin() {
      if (stopped || present) return;
      present = true;
      const runtime = handle.runtime;
      if (!runtime) return;
      // The phone signs out at most 5 s after it was asked to; it starts again once it has.
      void toPromise(runtime.device)
        .catch(() => undefined)
        .then(() => {
          if (stopped || !present || handle.runtime !== runtime) return;
          halt();
          set({ runtime: null, problem: null });
          launch();
        });
    },
    stop() {
      stopped = true;
      doc?.removeEventListener('visibilitychange', onVisible);
      halt();
    },
  };
}
