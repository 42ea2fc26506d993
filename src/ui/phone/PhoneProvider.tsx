import { useSelector } from '@xstate/react';
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { selectSessionStatus, selectUser } from '../../machines/session.selectors';
import type { AudioPreferences, VoiceCredentials, VoiceRuntime } from '../../io/voice/client';
import { selectCalls } from '../../machines/device.selectors';
import { useApiClient, useBeforeSignOut, useSessionActor, useToastActor } from '../app/actors';
import { selectDocumentData } from '../../machines/syncDocument.selectors';
import { useContainerSelector, useSyncDocument } from '../sync/containers';
import { audioPreferences, phoneSettingsFrom } from './settings';
import { onNotificationAction, phoneWorker } from './notifications';

export interface PhoneHandle {
  /** The running phone; null while it starts (or when it could not). */
  runtime: VoiceRuntime | null;
  /** Why the phone could not start, or null. */
  problem: string | null;
}

const PhoneContext = createContext<PhoneHandle>({ runtime: null, problem: null });

/**
 * Owns the signed-in person's phone for the signed-in frame: loads the Voice SDK (its own chunk),
 * takes the tab lock, registers, and stops it all on sign-out. A tab coming back to the foreground
 * re-checks the registration (a known SDK problem loses it in background tabs).
 */
export function PhoneProvider({ children }: { children: ReactNode }) {
  const api = useApiClient();
  const session = useSessionActor();
  const user = useSelector(session, selectUser);
  const status = useSelector(session, selectSessionStatus);
  const identity = user?.identity ?? null;
  const [handle, setHandle] = useState<PhoneHandle>({ runtime: null, problem: null });
  const beforeSignOut = useBeforeSignOut();
  /** Bumped to start the phone again after it signed out but the session did not end. */
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    if (identity === null) return;
    let stopped = false;
    let runtime: VoiceRuntime | null = null;
    import('../../io/voice/client')
      .then(({ startVoiceRuntime }) =>
        startVoiceRuntime({
          identity,
          fetchCredentials: () =>
            api.request('GET', '/api/voice/token') as Promise<VoiceCredentials>,
          fetchRegistered: async () =>
            ((await api.request('GET', '/api/voice/registration')) as { registered: boolean })
              .registered,
          controlCall: async (callSid, path, body) => {
            await api.request(
              'POST',
              `/api/voice/calls/${encodeURIComponent(callSid)}/${path}`,
              body,
            );
          },
          now: () => Date.now(),
          locks: typeof navigator !== 'undefined' && 'locks' in navigator ? navigator.locks : null,
          openChannel: (name) =>
            typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(name),
        }),
      )
      .then(
        (started) => {
          if (stopped) {
            started.stop();
            return;
          }
          runtime = started;
          setHandle({ runtime: started, problem: null });
        },
        (error: unknown) => {
          if (!stopped)
            setHandle({
              runtime: null,
              problem: `The phone could not start: ${error instanceof Error ? error.message : String(error)}`,
            });
        },
      );
    const onVisible = () => {
      if (document.visibilityState === 'visible') runtime?.device.send({ type: 'page.visible' });
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      stopped = true;
      document.removeEventListener('visibilitychange', onVisible);
      runtime?.stop();
      setHandle({ runtime: null, problem: null });
    };
  }, [api, identity, generation]);

  // Sign-out first hangs the phone up and unregisters it (the session ends once it has), so no call
  // rings in a browser whose person has left.
  useEffect(() => {
    const runtime = handle.runtime;
    if (!runtime) return;
    return beforeSignOut(() => runtime.leave());
  }, [beforeSignOut, handle.runtime]);

  // A sign-out that failed leaves the person signed in: their phone starts again.
  useEffect(() => {
    if (status === 'signedIn' && handle.runtime?.device.getSnapshot().status === 'done')
      setGeneration((n) => n + 1);
  }, [status, handle.runtime]);

  // Accept and Reject on an incoming call's notification act on the call in this tab, if it is here.
  useEffect(() => {
    const runtime = handle.runtime;
    if (!runtime) return;
    void phoneWorker();
    return onNotificationAction((callId, action) => {
      if (!(callId in selectCalls(runtime.device.getSnapshot()))) return false;
      if (action !== 'show')
        runtime.command(callId, { type: action === 'accept' ? 'call.accept' : 'call.reject' });
      return true;
    });
  }, [handle.runtime]);

  return (
    <PhoneContext.Provider value={handle}>
      {handle.runtime && identity !== null && (
        <ApplyAudioSettings runtime={handle.runtime} identity={identity} />
      )}
      {children}
    </PhoneContext.Provider>
  );
}

/**
 * Keeps the phone on the microphone, speaker, ringtone device and ringtone volume the person chose
 * in /setting (their settings document), and says so when a chosen device is gone.
 */
function ApplyAudioSettings({ runtime, identity }: { runtime: VoiceRuntime; identity: string }) {
  const toast = useToastActor();
  const settings = useSyncDocument(`settings:${identity}`, { data: {} });
  const data = useContainerSelector(settings, selectDocumentData, null);
  const loaded = data !== null;
  const prefs = JSON.stringify(audioPreferences(phoneSettingsFrom(data)));
  useEffect(() => {
    if (!loaded) return;
    let current = true;
    void runtime.audio.apply(JSON.parse(prefs) as AudioPreferences).then((problems) => {
      if (current)
        for (const message of problems)
          toast.send({ type: 'toast.show', message, toastType: 'warning' });
    });
    return () => {
      current = false;
    };
  }, [runtime, prefs, loaded, toast]);
  return null;
}

/** The phone of this frame (runtime null while starting). */
export function usePhone(): PhoneHandle {
  return useContext(PhoneContext);
}

/**
 * Click to call: a function that places a call from this tab's phone, or null while the phone cannot
 * place one (starting, held by another tab, broken). `to` is `client:<identity>` for a colleague,
 * otherwise what to dial.
 */
export function useDial(): ((to: string, displayName?: string | null) => void) | null {
  const { runtime } = usePhone();
  const ready = useSelector(runtime?.device, (s) => s?.hasTag('ready') ?? false);
  return runtime && ready ? runtime.dial : null;
}
