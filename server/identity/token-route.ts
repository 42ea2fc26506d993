import { API } from '../../src/contracts/api';
import { sendJson } from '../platform/http/errors';
import type { Router } from '../platform/http/router';
import type { Auth } from './sessions';

/** The Sync side of `GET /api/token`: who may open what, the token, and where the SDK connects. */
export interface SyncAccess {
  /** Resolves once `identity`'s permissions are in place; rejects with an HttpError when not. */
  ready(identity: string): Promise<void>;
  /** A Sync access token for `identity` (Twilio's, signed with the account's API key). */
  token(identity: string): string;
  /** The twilio-sync SDK's client options for a page at `pageOrigin`: where it connects. */
  clientOptions(pageOrigin: string): Record<string, unknown>;
}

export interface TokenRouteDeps {
  auth: Auth;
  sync: SyncAccess;
}

/**
 * GET /api/token: a Sync access token for the signed-in user, once their permissions are in place,
 * with the client options that point the twilio-sync SDK at the account's Sync service.
 */
export function registerTokenRoutes(router: Router, deps: TokenRouteDeps): void {
  router.route(API.syncToken, async (ctx) => {
    const { user } = deps.auth.requireSession(ctx);
    await deps.sync.ready(user.identity);
    sendJson(ctx.res, 200, {
      identity: user.identity,
      token: deps.sync.token(user.identity),
      sync: deps.sync.clientOptions(ctx.origin.origin),
    });
  });
}
