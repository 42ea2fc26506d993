/**
 * Ring groups and announcements stored as the admin screens store them: through the API (the server
 * makes a group's schedule, calendar, forwarding list and item; nobody else creates Sync objects),
 * then a group's holidays and forwarding rules through a real twilio-sync client of an admin, for the
 * integration and end-to-end suites.
 */
import type { SyncClient } from 'twilio-sync';
import { GROUPS } from '../../src/contracts/objects';
import { RING_TIMEOUT_MIN } from '../../src/contracts/records/group';
import type { ServerWrites } from './server-writes';

/** Open all day, every day (UTC). */
export const ALL_WEEK: Record<string, { start: string; end: string }[]> = Object.fromEntries(
  ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [
    d,
    [{ start: '00:00', end: '24:00' }],
  ]),
);

export interface GroupSpec {
  id: string;
  /** Its id when left out. */
  name?: string;
  number: string;
  members: string[];
  strategy?: 'simultaneous' | 'sequential';
  ringTimeout?: number;
  /** The schedule's time zone: UTC when left out. */
  timeZone?: string;
  /** Open all week when left out; `{}` for no hours. */
  week?: Record<string, { start: string; end: string }[]>;
  holidays?: { id: string; label: string; start: string; end: string }[];
  guidance?: Record<string, string>;
  rules?: Record<string, unknown>[];
}

/** A signed-in admin as the group form and the announcement screen reach the server. */
export interface AdminApi {
  baseUrl: string;
  /** The admin's `sb_session=…` cookie header. */
  cookie: string;
  /** The admin's twilio-sync client: admins write a group's hours, holidays and forwarding. */
  sync: SyncClient;
}

/** An admin's request with `body` to the API; throws with the answer unless it succeeded. */
async function apiSend(
  api: Pick<AdminApi, 'baseUrl' | 'cookie'>,
  method: 'POST' | 'PUT',
  path: string,
  body: unknown,
): Promise<Response> {
  const res = await fetch(`${api.baseUrl}${path}`, {
    method,
    headers: { cookie: api.cookie, origin: api.baseUrl, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res;
}

async function apiPost(
  api: Pick<AdminApi, 'baseUrl' | 'cookie'>,
  path: string,
  body: unknown,
): Promise<void> {
  await apiSend(api, 'POST', path, body);
}

/** What a conditional save (PUT) answers: saved, or what is stored now (null when it is gone). */
export type SaveAnswer = { ok: true } | { ok: false; current: Record<string, unknown> | null };

async function apiPut(
  api: Pick<AdminApi, 'baseUrl' | 'cookie'>,
  path: string,
  body: unknown,
): Promise<SaveAnswer> {
  return (await (await apiSend(api, 'PUT', path, body)).json()) as SaveAnswer;
}

/** The `groups` item `g` stands for. */
export function groupItem(g: GroupSpec): Record<string, unknown> {
  return {
    name: g.name ?? g.id,
    number: g.number,
    members: g.members,
    strategy: g.strategy ?? 'simultaneous',
    ringTimeout: g.ringTimeout ?? 20,
    ...(g.guidance ? { guidance: g.guidance } : {}),
  };
}

/**
 * Stores a group as the admin screens do now: POST /api/groups/:id makes its schedule, calendar,
 * forwarding list and item (the server is the only one who creates Sync objects), then the admin's
 * Sync client writes its holidays and forwarding rules, as the group's pages do. A group that rings
 * faster than the form allows is created at the form's minimum and then rewritten by `server` (the
 * Sync test hook, server-writes.ts), which the API would refuse.
 */
export async function saveGroup(api: AdminApi, g: GroupSpec, server?: ServerWrites): Promise<void> {
  const item = groupItem(g);
  const fast = (item.ringTimeout as number) < RING_TIMEOUT_MIN;
  if (fast && !server)
    throw new Error(`${g.id} rings for ${String(item.ringTimeout)} s: store it as the server`);
  await apiPost(api, `/api/groups/${encodeURIComponent(g.id)}`, {
    group: fast ? { ...item, ringTimeout: RING_TIMEOUT_MIN } : item,
    schedule: { timeZone: g.timeZone ?? 'UTC', week: g.week ?? ALL_WEEK },
  });
  if (g.holidays && g.holidays.length > 0) {
    const calendar = await api.sync.document({ id: `calendar:${g.id}`, mode: 'open_existing' });
    await calendar.set({ holidays: g.holidays });
  }
  if (g.rules && g.rules.length > 0) {
    const rules = await api.sync.list({ id: `forwarding:${g.id}`, mode: 'open_existing' });
    for (const r of g.rules) await rules.push(r);
  }
  if (fast) await server!.setMapItem(GROUPS.name, g.id, item);
}

/**
 * Stores an announcement (a `guidance` item) as the announcement screen does: POST
 * /api/announcements/:id.
 */
export async function saveAnnouncement(
  api: Pick<AdminApi, 'baseUrl' | 'cookie'>,
  id: string,
  announcement: Record<string, unknown>,
): Promise<void> {
  await apiPost(api, `/api/announcements/${encodeURIComponent(id)}`, { announcement });
}

/**
 * Saves a ring group's item as the group's edit form does: PUT /api/groups/:id, only if the stored
 * item is still `base` (what the edit started from).
 */
export function updateGroup(
  api: Pick<AdminApi, 'baseUrl' | 'cookie'>,
  id: string,
  base: Record<string, unknown>,
  group: Record<string, unknown>,
): Promise<SaveAnswer> {
  return apiPut(api, `/api/groups/${encodeURIComponent(id)}`, { base, group });
}

/**
 * Saves an announcement as its edit screen does: PUT /api/announcements/:id, only if the stored one
 * is still `base`.
 */
export function updateAnnouncement(
  api: Pick<AdminApi, 'baseUrl' | 'cookie'>,
  id: string,
  base: Record<string, unknown>,
  announcement: Record<string, unknown>,
): Promise<SaveAnswer> {
  return apiPut(api, `/api/announcements/${encodeURIComponent(id)}`, { base, announcement });
}
