import { SESSION_ROUTES } from '../contracts/api-session';
import type { AppActors } from './page';

/**
 * Checks the session again whenever the person comes back to the tab (focus, or the page becoming
 * visible). A session that ended meanwhile (expired, or signed out elsewhere) answers 401, and the
 * api client turns that into `session.expired`, so nobody works on in a tab that is no longer signed
 * in. Returns the cleanup that removes both listeners.
 */
export function revalidateOnReturn(actors: AppActors, win: Window, doc: Document): () => void {
  const check = (): void => {
    if (doc.visibilityState !== 'visible') return;
    if (actors.session.getSnapshot().context.user === null) return;
    // Errors other than 401 (offline, server restarting) are not a verdict on the session.
    actors.api.call(SESSION_ROUTES.session).catch(() => undefined);
  };
  win.addEventListener('focus', check);
  doc.addEventListener('visibilitychange', check);
  return () => {
    win.removeEventListener('focus', check);
    doc.removeEventListener('visibilitychange', check);
  };
}
