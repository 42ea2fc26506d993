import { redirect, type DataRouter, type LoaderFunctionArgs } from 'react-router-dom';
import { waitFor } from 'xstate';
import { safeRedirect } from '../../domain/redirect';
import type { AppActors } from '../../app/page';
import { isLoginPath, paths } from './paths';

export const ADMIN_ONLY_MESSAGE = 'Only admins can open the admin area.';

/** Late-bound: the loaders are part of the routes the router is made from. */
export interface RouterRef {
  current: DataRouter | null;
}

/** Decides nothing until the session has been restored: this is what prevents a login flash. */
async function settledSession(actors: AppActors, signal: AbortSignal) {
  return waitFor(actors.session, (s) => !s.matches('restoring'), { timeout: Infinity, signal });
}

/**
 * The full original path with query and hash. React Router strips the hash from loader requests,
 * so it is taken from the location being navigated to when that is the same path.
 */
export function targetPath(request: Request, router: DataRouter | null): string {
  const url = new URL(request.url);
  const location =
    router === null ? null : (router.state.navigation.location ?? router.state.location);
  const hash =
    location && location.pathname === url.pathname && location.search === url.search
      ? location.hash
      : '';
  return `${url.pathname}${url.search}${hash}`;
}

/**
 * Seed section 2's guard, on the root route before every navigation: no signed-in session and a
 * target other than /login goes to `/login?redirect=<full original path>`. A signed-in visitor who
 * opens /login is sent on to its `redirect` (when safe), which is also how a fresh sign-in lands.
 */
export function createRootGuard(actors: AppActors, router: RouterRef) {
  return async ({ request }: LoaderFunctionArgs): Promise<Response | null> => {
    const snapshot = await settledSession(actors, request.signal);
    const url = new URL(request.url);
    const signedIn = snapshot.context.user !== null;
    if (isLoginPath(url.pathname)) {
      if (signedIn) return redirect(safeRedirect(url.searchParams.get('redirect')));
      return null;
    }
    if (!signedIn) return redirect(paths.login.build(targetPath(request, router.current)));
    return null;
  };
}

/** The role check on top of the seed's guard: agents are turned away from /admin with a warning. */
export function createAdminGuard(actors: AppActors) {
  return async ({ request }: LoaderFunctionArgs): Promise<Response | null> => {
    const snapshot = await settledSession(actors, request.signal);
    // Signed out is the root guard's business; it redirects to /login.
    if (snapshot.context.user?.role === 'agent') {
      actors.toast.send({ type: 'toast.show', message: ADMIN_ONLY_MESSAGE, toastType: 'warning' });
      return redirect(paths.home.build());
    }
    return null;
  };
}
