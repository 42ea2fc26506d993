import { API } from '../../src/contracts/api';
import type { SyncService } from '../twins/sync/service';
import { sendJson } from '../platform/http/errors';
import type { Router } from '../platform/http/router';
import type { Auth } from './sessions';

export interface TokenRouteDeps {
  auth: Auth;
  sync: SyncService;
}

/**
 * GET /api/token: a Sync access token for the signed-in user plus the client options that point
 * the twilio-sync SDK at this server's embedded Sync service.
 */
export function registerTokenRoutes(router: Router, deps: TokenRouteDeps): void {
  router.route(API.syncToken, async (ctx) => {
    const { user, sessionRef } = deps.auth.requireSession(ctx);
    const { origin } = ctx.origin;
    // On Twilio, the person's Sync permissions are in place before their browser opens anything.
    await deps.sync.accessReady?.(user.identity);
    const token = deps.sync.mintToken(user.identity, undefined, sessionRef);
    sendJson(ctx.res, 200, {
      identity: user.identity,
      token,
      sync: deps.sync.clientOptions(origin),
    });
  });
}
