import type { Auth, AuthContext } from '../../auth/sessions';
import type { SyncService } from '../../sync/service';
import { sendJson } from '../errors';
import type { RequestOrigin } from '../origin';
import type { RequestContext, Router } from '../router';

export interface TokenRouteDeps {
  auth: Auth;
  sync: SyncService;
  authContext(ctx: RequestContext): AuthContext;
  origin(ctx: RequestContext): RequestOrigin;
}

/**
 * GET /api/token: a Sync access token for the signed-in user plus the client options that point
 * the twilio-sync SDK at this server's embedded Sync service.
 */
export function registerTokenRoutes(router: Router, deps: TokenRouteDeps): void {
  router.on('GET', '/api/token', (ctx) => {
    const user = deps.auth.requireUser(deps.authContext(ctx));
    const { origin } = deps.origin(ctx);
    const token = deps.sync.mintToken(user.identity);
    sendJson(ctx.res, 200, {
      identity: user.identity,
      token,
      sync: deps.sync.clientOptions(origin),
    });
  });
}
