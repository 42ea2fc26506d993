/**
 * What the routing engine (src/domain/routing/engine.ts) needs, read from the embedded Sync
 * service: a group's item in `groups`, its `schedule:{id}` and `calendar:{id}` documents and its
 * `forwarding:{id}` list, read tolerantly (what a screen would show). Who can take a call comes
 * from the voice service (registered, on a call), the person's do-not-disturb and their presence
 * (Away).
 */
import { calendarFromData } from '../../src/domain/calendar';
import { ruleFromData } from '../../src/domain/forwarding';
import { decide, transferTurns } from '../../src/domain/routing/engine';
import { scheduleFromData } from '../../src/domain/schedule';
import type { InternalSync } from '../twins/sync/internal';
import { GROUPS, groupObjectNames, PRESENCE } from '../../src/contracts/objects';
import { presenceRecord } from '../../src/contracts/records/presence';
import { groupRecord } from '../../src/contracts/records/group';
import type { Availability, Decision, GroupSetup } from '../../src/domain/routing/plan';

/** A group's forwarding rules beyond this many are not read (the screens add them one by one). */
const MAX_RULES = 100;

/** Whether `identity`'s presence item says Away. */
export function isAway(sync: InternalSync, identity: string): boolean {
  const item = sync.getMapItem(PRESENCE.name, identity);
  return item !== undefined && presenceRecord.read(item).status === 'away';
}

/** A group's setup, or null when there is no such group. */
export function groupSetup(sync: InternalSync, id: string): GroupSetup | null {
  const item = sync.getMapItem(GROUPS.name, id);
  if (!item) return null;
  const names = groupObjectNames(id);
  const schedule = sync.documentData(names.schedule);
  const calendar = sync.documentData(names.calendar);
  const rules = sync.listItems(names.forwarding, MAX_RULES).flatMap((data) => {
    const rule = ruleFromData(data);
    return rule ? [rule] : [];
  });
  return {
    id,
    group: groupRecord.read(item),
    schedule: schedule ? scheduleFromData(schedule) : null,
    calendar: calendar ? calendarFromData(calendar) : null,
    rules,
  };
}

export interface RouterDeps {
  sync: InternalSync;
  isRegistered: (identity: string) => boolean;
  isOnCall: (identity: string) => boolean;
  doNotDisturb: (identity: string) => boolean;
  /** Their presence says Away (the top bar's status). */
  isAway?: (identity: string) => boolean;
  nameOf: (identity: string) => string;
}

/**
 * Whether someone can take a group's call now: registered, not on do-not-disturb, not on a call,
 * not away (src/domain/routing/plan.ts).
 */
function availability(deps: RouterDeps): (identity: string) => Availability {
  return (identity) =>
    !deps.isRegistered(identity)
      ? 'offline'
      : deps.doNotDisturb(identity)
        ? 'doNotDisturb'
        : deps.isOnCall(identity)
          ? 'onCall'
          : deps.isAway?.(identity)
            ? 'away'
            : 'available';
}

/** The engine over the stored setup and who can take a call now. */
export function createRouter(deps: RouterDeps): (groupId: string, at: number) => Decision {
  const availabilityOf = availability(deps);
  return (groupId, at) => {
    // Each group is read once per decision, however often forwarding comes back to it.
    const cache = new Map<string, GroupSetup | null>();
    const setupOf = (id: string): GroupSetup | null => {
      if (!cache.has(id)) cache.set(id, groupSetup(deps.sync, id));
      return cache.get(id)!;
    };
    return decide({
      groupId,
      at,
      setupOf,
      availabilityOf,
      externalCalls: false,
      nameOf: deps.nameOf,
    });
  };
}

/**
 * Who a colleague's transfer to a group rings, from the stored group, leaving out the people already
 * on the call; null when the group is gone.
 */
export function createGroupTransfer(
  deps: RouterDeps,
): (groupId: string, leaveOut: readonly string[]) => ReturnType<typeof transferTurns> | null {
  const availabilityOf = availability(deps);
  return (groupId, leaveOut) => {
    const setup = groupSetup(deps.sync, groupId);
    return setup ? transferTurns(setup, availabilityOf, deps.nameOf, leaveOut) : null;
  };
}
