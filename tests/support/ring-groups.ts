/**
 * Ring groups stored as the admin screens store them (schedule, calendar and forwarding list first,
 * the `groups` item last), through a real twilio-sync client of an admin, for the routing tests.
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
  /** Open all week when left out; `{}` for no hours. */
  week?: Record<string, { start: string; end: string }[]>;
  holidays?: { id: string; label: string; start: string; end: string }[];
  guidance?: Record<string, string>;
  rules?: Record<string, unknown>[];
}

/**
 * The group form's request before it writes a new group, with a signed-in session's `cookie`
 * header: POST /api/groups/:id/objects; true when the server made the objects (Twilio mode). The
 * `prepare` of {@link storeGroup}.
 */
export function groupObjectsWith(
  baseUrl: string,
  cookie: string,
): (groupId: string) => Promise<boolean> {
  return async (groupId) => {
    const res = await fetch(`${baseUrl}/api/groups/${encodeURIComponent(groupId)}/objects`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', origin: baseUrl },
      body: JSON.stringify({ timeZone: 'UTC' }),
    });
    if (!res.ok) throw new Error(`group objects for ${groupId}: ${res.status} ${await res.text()}`);
    return res.status === 201;
  };
}

/**
 * `server` writes the `groups` item when it rings faster than the group form allows (a quicker test):
 * the Sync service refuses such an item from a browser (server-writes.ts).
 */
export async function storeGroup(
  sync: SyncClient,
  g: GroupSpec,
  server?: ServerWrites,
  /**
   * Asks the server to make the group's objects first, as the group form does (POST
   * /api/groups/:id/objects): true when it did (on Twilio, where a browser may not create
   * objects), so they are opened rather than created.
   */
  prepare?: (groupId: string) => Promise<boolean>,
): Promise<void> {
  const mode = (await prepare?.(g.id)) ? 'open_existing' : 'create_new';
  const schedule = await sync.document({ id: `schedule:${g.id}`, mode });
  await schedule.set({ timeZone: 'UTC', week: g.week ?? ALL_WEEK });
  const calendar = await sync.document({ id: `calendar:${g.id}`, mode });
  await calendar.set({ holidays: g.holidays ?? [] });
  const rules = await sync.list({ id: `forwarding:${g.id}`, mode });
  for (const r of g.rules ?? []) await rules.push(r);
  const item = {
    name: g.name ?? g.id,
    number: g.number,
    members: g.members,
    strategy: g.strategy ?? 'simultaneous',
    ringTimeout: g.ringTimeout ?? 20,
    ...(g.guidance ? { guidance: g.guidance } : {}),
  };
  if (item.ringTimeout >= RING_TIMEOUT_MIN) {
    await (await sync.map(GROUPS.name)).set(g.id, item);
    return;
  }
  if (!server) throw new Error(`${g.id} rings for ${item.ringTimeout} s: store it as the server`);
  await server.setMapItem(GROUPS.name, g.id, item);
}

/** A signed-in admin as the group form and the announcement screen reach the server. */
export interface AdminApi {
  baseUrl: string;
  /** The admin's `sb_session=…` cookie header. */
  cookie: string;
  /** The admin's twilio-sync client: admins write a group's hours, holidays and forwarding. */
  sync: SyncClient;
}

/** An admin's POST of `body` to the API; throws with the answer unless it succeeded. */
async function apiPost(
  api: Pick<AdminApi, 'baseUrl' | 'cookie'>,
  path: string,
  body: unknown,
): Promise<void> {
  const res = await fetch(`${api.baseUrl}${path}`, {
    method: 'POST',
    headers: { cookie: api.cookie, origin: api.baseUrl, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
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
    schedule: { timeZone: 'UTC', week: g.week ?? ALL_WEEK },
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
