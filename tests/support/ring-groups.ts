/**
 * Ring groups stored as the admin screens store them (schedule, calendar and forwarding list first,
 * the `groups` item last), through a real twilio-sync client of an admin, for the routing tests.
 */
import type { SyncClient } from 'twilio-sync';

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

export async function storeGroup(sync: SyncClient, g: GroupSpec): Promise<void> {
  const schedule = await sync.document({ id: `schedule:${g.id}`, mode: 'create_new' });
  await schedule.set({ timeZone: 'UTC', week: g.week ?? ALL_WEEK });
  const calendar = await sync.document({ id: `calendar:${g.id}`, mode: 'create_new' });
  await calendar.set({ holidays: g.holidays ?? [] });
  const rules = await sync.list({ id: `forwarding:${g.id}`, mode: 'create_new' });
  for (const r of g.rules ?? []) await rules.push(r);
  await (
    await sync.map('groups')
  ).set(g.id, {
    name: g.name ?? g.id,
    number: g.number,
    members: g.members,
    strategy: g.strategy ?? 'simultaneous',
    ringTimeout: g.ringTimeout ?? 20,
    ...(g.guidance ? { guidance: g.guidance } : {}),
  });
}
