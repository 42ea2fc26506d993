/**
 * Ring groups as admins change them (POST, PUT and DELETE /api/groups/:id): the server checks each
 * write against the group's record (src/contracts/records/group.ts) and the rule that one number
 * reaches one thing (src/domain/group.ts, `numberClash`), then writes Sync through its REST API.
 * Browsers only read the `groups` map: Twilio Sync's permissions are per object and cannot hold a
 * rule that reads other groups and people, so the write comes here, on every backend.
 *
 * - Create: the group's schedule (its hours), calendar and forwarding list are made and granted to
 *   the team first (twilio/acl.ts), then its item: a group is only listed once its objects exist,
 *   and a create that fails removes what it made. 201; 409 `group_exists` for an id in use,
 *   `number_taken` for a number that is another group's or someone's extension.
 * - Update: saved only if the stored group is still `base`, what the admin's edit started from
 *   (compared as the browser compares it, then written with If-Match on the revision read); otherwise
 *   the answer is what is stored now, for the editor to offer (null when the group is gone).
 * - Delete: the item first (the group stops ringing), then its objects.
 */
import { API } from '../../src/contracts/api';
import { GROUPS } from '../../src/contracts/objects';
import type { JsonObject } from '../../src/contracts/record';
import { groupRecord, type Group } from '../../src/contracts/records/group';
import { scheduleRecord } from '../../src/contracts/records/schedule';
import { isTimeZone } from '../../src/domain/wall-clock';
import { dialledGroups, extensionOwners, numberClash } from '../../src/domain/group';
import type { Auth } from '../identity/sessions';
import type { User } from '../identity/users';
import { readBody } from '../platform/http/body';
import { badRequest, HttpError, sendJson } from '../platform/http/errors';
import type { RequestContext, Router } from '../platform/http/router';
import type { SyncAcl } from '../twilio/acl';
import type { SyncRest } from '../twilio/sync-rest';
import { checkedWrite } from '../identity/policy';

export interface GroupRouteDeps {
  auth: Auth;
  rest: SyncRest;
  acl: Pick<SyncAcl, 'createGroupObjects' | 'removeGroupObjects'>;
  /** Every ring group as stored now (read afresh: a number taken a moment ago counts). */
  groups: () => Promise<Map<string, Group>>;
  /** Everyone on the team now, with their extensions. */
  people: () => readonly User[];
  /** A group was made, changed or removed here: routing reads the groups again. */
  changed: () => void;
}

/** A group id as the browser makes them (`newGroupId`) and routes accept (`isValidRouteId`). */
const GROUP_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

function groupId(ctx: RequestContext): string {
  const id = ctx.params.id ?? '';
  if (!GROUP_ID.test(id)) throw badRequest('The group id in the path is not valid');
  return id;
}

export function registerGroupRoutes(router: Router, deps: GroupRouteDeps): void {
  /** Refuses a number that another group has or that is someone's extension (409). */
  async function checkNumber(id: string, group: JsonObject): Promise<void> {
    const number = typeof group.number === 'string' ? group.number : '';
    const groups = await deps.groups().catch(() => {
      throw new HttpError(
        503,
        'upstream_error',
        'The ring groups could not be read just now, so nothing was saved; try again in a moment',
      );
    });
    const clash = numberClash(id, number, dialledGroups(groups), extensionOwners(deps.people()));
    if (clash) throw new HttpError(409, 'number_taken', clash);
  }

  router.route(API.createGroup, async (ctx) => {
    deps.auth.requireAdmin(ctx);
    const id = groupId(ctx);
    const body = await readBody(ctx.req, API.createGroup);
    const group = checkedWrite(groupRecord, body.group);
    const schedule = checkedWrite(scheduleRecord, body.schedule);
    if (!isTimeZone(String(schedule.timeZone)))
      throw badRequest('Field schedule.timeZone must be an IANA time zone, like Europe/London');
    await checkNumber(id, group);
    await deps.acl.createGroupObjects(id, schedule);
    let created: 'created' | 'exists';
    try {
      created = await deps.rest.createMapItem(GROUPS.name, id, group);
    } catch (err) {
      await deps.acl.removeGroupObjects(id);
      throw err;
    }
    if (created === 'exists') {
      await deps.acl.removeGroupObjects(id);
      throw new HttpError(
        409,
        'group_exists',
        'A ring group with this id exists already; try again',
      );
    }
    deps.changed();
    ctx.res.writeHead(201, { 'Cache-Control': 'no-store' });
    ctx.res.end();
  });

  router.route(API.updateGroup, async (ctx) => {
    deps.auth.requireAdmin(ctx);
    const id = groupId(ctx);
    const body = await readBody(ctx.req, API.updateGroup);
    const group = checkedWrite(groupRecord, body.group);
    await checkNumber(id, group);
    const saved = await deps.rest.replaceMapItemIf(GROUPS.name, id, body.base, group);
    if (saved.ok) deps.changed();
    sendJson(ctx.res, 200, saved);
  });

  router.route(API.deleteGroup, async (ctx) => {
    deps.auth.requireAdmin(ctx);
    const id = groupId(ctx);
    await deps.rest.removeMapItem(GROUPS.name, id);
    deps.changed();
    const left = await deps.acl.removeGroupObjects(id);
    if (left.length > 0)
      throw new HttpError(
        502,
        'upstream_error',
        `The group was deleted, but ${left.join(', ')} could not be removed. Try deleting again later.`,
      );
    ctx.res.writeHead(204, { 'Cache-Control': 'no-store' });
    ctx.res.end();
  });
}
