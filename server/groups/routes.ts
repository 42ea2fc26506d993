import { API } from '../../src/contracts/api';
import type { Auth } from '../identity/sessions';
import { readBody } from '../platform/http/body';
import { badRequest, sendJson } from '../platform/http/errors';
import type { Router } from '../platform/http/router';

export interface GroupObjectRouteDeps {
  auth: Auth;
  /**
   * Makes a new group's schedule, calendar and forwarding list on the server, for a backend where
   * browsers cannot create objects (Twilio Sync with ACL, server/twilio/acl.ts). Absent on the
   * embedded backend, whose Sync service lets admins create them.
   */
  create?: (groupId: string, timeZone: string) => Promise<void>;
}

/** A group id as the browser makes them (`newGroupId`) and routes accept (`isValidRouteId`). */
const GROUP_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

function validTimeZone(timeZone: string): boolean {
  if (timeZone.length === 0 || timeZone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/**
 * POST /api/groups/:id/objects (admin), body `{ timeZone }`: before an admin's browser writes a new
 * ring group, the group's own objects. On Twilio the server makes them (the schedule in that time
 * zone, with no hours) and grants them to the team: 201 `{ created: true }`, 409 `group_exists`. On
 * the embedded backend the browser creates them itself: 200 `{ created: false }`.
 */
export function registerGroupObjectRoutes(router: Router, deps: GroupObjectRouteDeps): void {
  router.route(API.groupObjects, async (ctx) => {
    deps.auth.requireAdmin(ctx);
    const id = ctx.params.id ?? '';
    if (!GROUP_ID.test(id)) throw badRequest('The group id in the path is not valid');
    const { timeZone } = await readBody(ctx.req, API.groupObjects);
    if (!validTimeZone(timeZone)) throw badRequest('Field timeZone must be an IANA time zone');
    if (!deps.create) {
      sendJson(ctx.res, 200, { created: false });
      return;
    }
    await deps.create(id, timeZone);
    sendJson(ctx.res, 201, { created: true });
  });
}
