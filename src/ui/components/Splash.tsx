import { useSelector } from '@xstate/react';
import { selectIsRestoring } from '../../machines/session.selectors';
import { useSessionActor } from '../app/actors';

/**
 * What shows while the router waits (first load, lazy screens). While the session is being
 * restored it says so to assistive technology and to tests; it never hints at signed in or out.
 */
export function Splash() {
  const restoring = useSelector(useSessionActor(), selectIsRestoring);
  if (restoring) {
    return (
      <div className="splash" data-testid="session-restoring" aria-busy="true">
        <span className="visually-hidden">Loading…</span>
      </div>
    );
  }
  return <div className="splash" aria-busy="true" />;
}
