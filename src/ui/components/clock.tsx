/**
 * The wall clock for views that show running times (hold timers, call timers). Views read it
 * through {@link useNow}; tests provide their own clock with {@link ClockProvider}. Machines never
 * use it: they get time through named delays.
 */
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';

export interface Clock {
  now(): number;
  /** Calls `tick` every `ms` until the returned function is called. */
  every(ms: number, tick: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  every(ms, tick) {
    const id = setInterval(tick, ms);
    return () => clearInterval(id);
  },
};

const ClockContext = createContext<Clock>(systemClock);

export function ClockProvider({ clock, children }: { clock: Clock; children: ReactNode }) {
  return <ClockContext.Provider value={clock}>{children}</ClockContext.Provider>;
}

/** The current time, re-rendering every `ms` while `active`. */
export function useNow(ms = 1000, active = true): number {
  const clock = useContext(ClockContext);
  const [now, setNow] = useState(() => clock.now());
  useEffect(() => {
    if (!active) return;
    setNow(clock.now());
    return clock.every(ms, () => setNow(clock.now()));
  }, [clock, ms, active]);
  return now;
}
