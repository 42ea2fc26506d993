/**
 * Announcements as admins change them (POST, PUT and DELETE /api/announcements/:id): each write is
 * checked against the announcement's record (src/contracts/records/announcement.ts) and written
 * through Sync's REST API; one a ring group plays is not removed (409 `announcement_in_use`, naming
 * the groups and where they play it), since a call would find nothing to play. Browsers only read
 * the `guidance` map: Twilio Sync's permissions are per object and cannot ask which groups play an
 * item, so the write comes here, on every backend. An update is saved only if the stored
 * announcement is still what the admin's edit started from, as a ring group's (groups/routes.ts).
 */
import { API } from '../../src/contracts/api';
import { ANNOUNCEMENTS } from '../../src/contracts/objects';
import { announcementRecord } from '../../src/contracts/records/announcement';
import type { Group } from '../../src/contracts/records/group';
import { groupsUsing } from '../../src/domain/announcement';
import { checkedWrite } from '../identity/policy';
import type { Auth } from '../identity/sessions';
import { readBody } from '../platform/http/body';
import { badRequest, HttpError, sendJson } from '../platform/http/errors';
import type { RequestContext, Router } from '../platform/http/router';
import type { SyncRest } from '../twilio/sync-rest';

export interface AnnouncementRouteDeps {
  auth: Auth;
  rest: SyncRest;
  /** Every ring group as stored now (read afresh: a group that chose it a moment ago counts). */
  groups: () => Promise<Map<string, Group>>;
  /** An announcement was made, changed or removed here: routing reads them again. */
  changed: () => void;
}

/** An announcement id as the browser makes them (`newAnnouncementId`) and routes accept. */
const ANNOUNCEMENT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

function announcementId(ctx: RequestContext): string {
  const id = ctx.params.id ?? '';
  if (!ANNOUNCEMENT_ID.test(id)) throw badRequest('The announcement id in the path is not valid');
  return id;
}

export function registerAnnouncementRoutes(router: Router, deps: AnnouncementRouteDeps): void {
  router.route(API.createAnnouncement, async (ctx) => {
    deps.auth.requireAdmin(ctx);
    const id = announcementId(ctx);
    const body = await readBody(ctx.req, API.createAnnouncement);
    const announcement = checkedWrite(announcementRecord, body.announcement);
    const created = await deps.rest.createMapItem(ANNOUNCEMENTS.name, id, announcement);
    if (created === 'exists')
      throw new HttpError(
        409,
        'announcement_exists',
        'An announcement with this id exists already; try again',
      );
    deps.changed();
    ctx.res.writeHead(201, { 'Cache-Control': 'no-store' });
    ctx.res.end();
  });

  router.route(API.updateAnnouncement, async (ctx) => {
    deps.auth.requireAdmin(ctx);
    const id = announcementId(ctx);
    const body = await readBody(ctx.req, API.updateAnnouncement);
    const announcement = checkedWrite(announcementRecord, body.announcement);
    const saved = await deps.rest.replaceMapItemIf(ANNOUNCEMENTS.name, id, body.base, announcement);
    if (saved.ok) deps.changed();
    sendJson(ctx.res, 200, saved);
  });

  router.route(API.deleteAnnouncement, async (ctx) => {
    deps.auth.requireAdmin(ctx);
    const id = announcementId(ctx);
    const groups = await deps.groups().catch(() => {
      throw new HttpError(
        503,
        'upstream_error',
        'The ring groups could not be read just now, so nothing was deleted; try again in a moment',
      );
    });
    const uses = groupsUsing(id, groups);
    if (uses.length > 0) {
      const stored = await deps.rest.getMapItem(ANNOUNCEMENTS.name, id);
      const name = announcementRecord.read(stored?.data ?? {}).name || 'This announcement';
      throw new HttpError(
        409,
        'announcement_in_use',
        `${name} is played by ${uses.length === 1 ? 'the ring group' : 'the ring groups'} ${uses.join('; ')}. Choose another announcement there first.`,
      );
    }
    await deps.rest.removeMapItem(ANNOUNCEMENTS.name, id);
    deps.changed();
    ctx.res.writeHead(204, { 'Cache-Control': 'no-store' });
    ctx.res.end();
  });
}
