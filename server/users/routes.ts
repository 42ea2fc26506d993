import type { Auth } from '../auth/sessions';
import { readJsonBody } from '../http/body';
import { badRequest, HttpError, sendJson } from '../http/errors';
import type { RequestContext, Router } from '../http/router';
import { publicUser } from '../http/routes/session';
import { expectFields, parseName } from '../http/validate';
import type { Role } from '../store/users';
import type { Directory } from './directory';
import { parseExtension, type GroupNumber } from './extensions';
import type { PresenceSettings } from './presence';
import type { TeamStore } from './store';

export interface UserRouteDeps {
  auth: Auth;
  team: TeamStore;
  directory: Directory;
  /** Drops the removed user's live Sync sockets. */
  disconnect: (identity: string) => void;
  presence: PresenceSettings;
  /** The ring groups' numbers now (an extension may not be one). */
  groups: () => GroupNumber[];
}

const ROLES: readonly Role[] = ['admin', 'agent'];

function identityParam(ctx: RequestContext): string {
  const raw = ctx.params.identity ?? '';
  let identity: string;
  try {
    identity = decodeURIComponent(raw);
  } catch {
    throw badRequest('The user in the path is not valid URL encoding');
  }
  if (identity.length === 0 || identity.length > 254) throw badRequest('No such user identity');
  return identity;
}

/**
 * GET /api/presence/settings (signed in): the heartbeat and ttl every browser uses for its presence
 * item. PUT /api/me/name (signed in): the person's own display name, as colleagues see it.
 * Admin-only team management: PUT /api/users/:identity/role, PUT /api/users/:identity/extension and
 * DELETE /api/users/:identity. The
 * database changes first, then the `users` Sync map follows, so every open /users screen updates.
 */
export function registerUserRoutes(router: Router, deps: UserRouteDeps): void {
  router.on('GET', '/api/presence/settings', (ctx) => {
    deps.auth.requireUser(ctx);
    sendJson(ctx.res, 200, deps.presence);
  });

  router.on('PUT', '/api/me/name', async (ctx) => {
    const me = deps.auth.requireUser(ctx);
    const body = expectFields(await readJsonBody(ctx.req), ['name']);
    if (typeof body.name !== 'string') throw badRequest('Field name must be a string');
    const { user, changed } = deps.team.rename(me.identity, parseName(body.name));
    if (changed) deps.directory.upsert(user);
    sendJson(ctx.res, 200, { user: publicUser(user) });
  });

  router.on('PUT', '/api/users/:identity/role', async (ctx) => {
    deps.auth.requireAdmin(ctx);
    const identity = identityParam(ctx);
    const body = expectFields(await readJsonBody(ctx.req), ['role']);
    const role = ROLES.find((r) => r === body.role);
    if (!role) throw badRequest('Field role must be "admin" or "agent"');
    const { user, changed } = deps.team.setRole(identity, role);
    if (changed) deps.directory.upsert(user);
    sendJson(ctx.res, 200, { user: publicUser(user) });
  });

  router.on('PUT', '/api/users/:identity/extension', async (ctx) => {
    deps.auth.requireAdmin(ctx);
    const identity = identityParam(ctx);
    const body = expectFields(await readJsonBody(ctx.req), ['extension']);
    const extension = parseExtension(body.extension);
    const { user, changed } = deps.team.setExtension(identity, extension, deps.groups());
    if (changed) deps.directory.upsert(user);
    sendJson(ctx.res, 200, { user: publicUser(user) });
  });

  router.on('DELETE', '/api/users/:identity', (ctx) => {
    const admin = deps.auth.requireAdmin(ctx);
    const identity = identityParam(ctx);
    if (identity === admin.identity) {
      throw new HttpError(
        409,
        'cannot_remove_self',
        'You cannot remove yourself; ask another admin to do it',
      );
    }
    const removed = deps.team.remove(identity);
    deps.directory.remove(removed.identity);
    deps.disconnect(removed.identity);
    ctx.res.writeHead(204, { 'Cache-Control': 'no-store' });
    ctx.res.end();
  });
}
