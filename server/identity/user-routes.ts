import { API } from '../../src/contracts/api';
import { readBody } from '../platform/http/body';
import { HttpError, sendJson } from '../platform/http/errors';
import type { RequestContext, Router } from '../platform/http/router';
import type { Directory } from './directory';
import { IdentityError, invalidField, unknownUser } from './errors';
import { parseExtension } from './extensions';
import { parseName } from './fields';
import type { ReturningPeople } from './returning';
import { publicUser } from './session-routes';
import type { Auth } from './sessions';
import type { Users } from './users';

export interface UserRouteDeps {
  auth: Auth;
  users: Users;
  /** The `users` directory; a removal takes the person's Sync permissions away with it. */
  directory: Directory;
  /** Issues a colleague's one-time sign-in code (returning.ts). */
  returning: ReturningPeople;
  /**
   * Reads the ring groups afresh before an extension changes, where `users` sees only the copy last
   * read from Sync.
   */
  readGroups: () => Promise<unknown>;
}

function identityParam(ctx: RequestContext): string {
  const raw = ctx.params.identity ?? '';
  let identity: string;
  try {
    identity = decodeURIComponent(raw);
  } catch {
    throw invalidField('The user in the path is not valid URL encoding');
  }
  if (identity.length === 0 || identity.length > 254) throw invalidField('No such user identity');
  return identity;
}

/**
 * PUT /api/me/name (signed in): the person's own display name, as colleagues see it.
 * Admin-only team management: PUT /api/users/:identity/role, PUT /api/users/:identity/extension and
 * DELETE /api/users/:identity, and POST /api/users/:identity/sign-in-code (a colleague's one-time
 * sign-in code, for the admin to pass on). The database changes first, then the `users` Sync map follows, so
 * every open /users screen updates.
 */
export function registerUserRoutes(router: Router, deps: UserRouteDeps): void {
  router.route(API.renameMe, async (ctx) => {
    const me = deps.auth.requireUser(ctx);
    const body = await readBody(ctx.req, API.renameMe);
    const { user, changed } = deps.users.rename(me.identity, parseName(body.name));
    if (changed) deps.directory.upsert(user);
    sendJson(ctx.res, 200, { user: publicUser(user) });
  });

  router.route(API.setRole, async (ctx) => {
    deps.auth.requireAdmin(ctx);
    const identity = identityParam(ctx);
    const { role } = await readBody(ctx.req, API.setRole);
    const { user, changed } = deps.users.setRole(identity, role);
    if (changed) deps.directory.upsert(user);
    sendJson(ctx.res, 200, { user: publicUser(user) });
  });

  router.route(API.setExtension, async (ctx) => {
    deps.auth.requireAdmin(ctx);
    const identity = identityParam(ctx);
    const body = await readBody(ctx.req, API.setExtension);
    const extension = parseExtension(body.extension);
    // Nothing changes unless the groups' numbers are known now: an extension taken on a stale copy
    // would clash with a group made since.
    await deps.readGroups().catch(() => {
      throw new HttpError(
        503,
        'upstream_error',
        'The ring groups could not be read just now, so the extension was not changed; try again in a moment',
      );
    });
    const { user, changed } = deps.users.setExtension(identity, extension);
    if (changed) deps.directory.upsert(user);
    sendJson(ctx.res, 200, { user: publicUser(user) });
  });

  router.route(API.issueSignInCode, (ctx) => {
    const admin = deps.auth.requireAdmin(ctx);
    const identity = identityParam(ctx);
    if (deps.users.get(identity) === null) throw unknownUser(identity);
    const issued = deps.returning.issue(identity, admin.identity, ctx.now);
    ctx.res.setHeader('Cache-Control', 'no-store');
    sendJson(ctx.res, 200, { identity, ...issued });
  });

  router.route(API.removeUser, (ctx) => {
    const admin = deps.auth.requireAdmin(ctx);
    const identity = identityParam(ctx);
    if (identity === admin.identity) {
      throw new IdentityError(
        'conflict',
        'cannot_remove_self',
        'You cannot remove yourself; ask another admin to do it',
      );
    }
    const removed = deps.users.remove(identity);
    deps.directory.remove(removed.identity);
    ctx.res.writeHead(204, { 'Cache-Control': 'no-store' });
    ctx.res.end();
  });
}
