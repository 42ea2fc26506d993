import { useSelector } from '@xstate/react';
import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { selectSessionStatus, selectUser } from '../../machines/session.selectors';
import { useApiClient, useSessionActor } from '../app/actors';
import { useSyncMap } from '../sync/containers';
import { PRESENCE_MAP } from './maps';
import { fetchPresenceSettings, type PresenceSettings } from './settings';
import { usePresenceActor, type PresenceActor } from './usePresenceActor';

export interface PresenceHandle {
  /** This browser's presence actor; undefined until the presence map is open. */
  actor: PresenceActor | undefined;
  /** Why presence cannot start (the settings could not be read), or null. */
  problem: string | null;
}

const PresenceContext = createContext<PresenceHandle | null>(null);

/**
 * Owns this browser's presence heartbeat for the signed-in frame: reads the server's settings,
 * opens the `presence` map and runs the presence machine on it. Signing out withdraws the item, so
 * colleagues see Offline at once; a closed browser stops refreshing and its item lapses with the
 * ttl. Anything below reaches the actor with {@link usePresence}: the top bar's selector sends
 * `presence.setStatus`. Nothing sends `presence.setOnCall` on the embedded backend: its server puts
 * `onCall` into every presence write from the calls it carries.
 */
export function PresenceProvider({ children }: { children: ReactNode }) {
  const api = useApiClient();
  const session = useSessionActor();
  const user = useSelector(session, selectUser);
  const signingOut = useSelector(session, selectSessionStatus) === 'signingOut';
  const [settings, setSettings] = useState<PresenceSettings | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  // Counts sign-outs that did not happen: each starts the heartbeat again.
  const [comebacks, setComebacks] = useState(0);
  const withdrawn = useRef(false);
  const map = useSyncMap(PRESENCE_MAP);
  const actor = usePresenceActor(map, user?.identity ?? null, settings, comebacks);

  useEffect(() => {
    let cancelled = false;
    fetchPresenceSettings(api).then(
      (value) => !cancelled && setSettings(value),
      (error: unknown) =>
        !cancelled &&
        setProblem(
          `Your status cannot be shared: ${error instanceof Error ? error.message : String(error)}`,
        ),
    );
    return () => {
      cancelled = true;
    };
  }, [api]);

  useEffect(() => {
    if (signingOut) {
      actor?.send({ type: 'presence.withdraw' });
      withdrawn.current = true;
    } else if (withdrawn.current) {
      // The sign-out was refused or never reached the server: still signed in, so present again.
      withdrawn.current = false;
      setComebacks((n) => n + 1);
    }
  }, [signingOut, actor]);

  return <PresenceContext.Provider value={{ actor, problem }}>{children}</PresenceContext.Provider>;
}

/** This browser's presence; throws outside {@link PresenceProvider} (a wiring mistake). */
export function usePresence(): PresenceHandle {
  const value = useContext(PresenceContext);
  if (value === null) throw new Error('PresenceProvider is missing above this component');
  return value;
}
