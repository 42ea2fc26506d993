/**
 * What the routing engine needs to decide a call, read from Sync over REST on every backend: the
 * ring groups, each group's hours, holidays and forwarding rules (what admins configure, reused for
 * {@link CONFIG_TTL_MS}), and whether each person can take a call (their `presence` item, their
 * do-not-disturb setting, and the calls this server saw them take). The engine is synchronous, so
 * everything a decision may touch (the group dialled, the groups its rules forward to, as deep as
 * the engine goes, and everyone they may ring) is loaded first: in two rounds (the groups list,
 * then everything else at once), and from the last copy read when Sync is slow or down (cache.ts).
 *
 * Presence and do not disturb are read for every call, unless this server follows the Sync
 * service's webhooks (sync-events.ts, {@link RoutingData.followEvents}): then a copy of both is kept
 * current by Sync's own events and a call reads neither (live-copy.ts).
 */
import { calendarFromData } from '../../src/domain/calendar';
import { ruleFromData } from '../../src/domain/forwarding';
import { scheduleFromData } from '../../src/domain/schedule';
import type { JsonObject } from '../../src/contracts/record';
import { settleWithin, TtlCache } from './cache';
import { LiveCopy } from './live-copy';
import type { StoredMapItem, SyncRest } from '../twilio/sync-rest';
import {
  ANNOUNCEMENTS,
  GROUPS,
  groupObjectNames as groupObjects,
  PRESENCE,
  SETTINGS,
} from '../../src/contracts/objects';
import { groupRecord, normaliseNumber, type Group } from '../../src/contracts/records/group';
import { settingsRecord } from '../../src/contracts/records/settings';
import { presenceRecord } from '../../src/contracts/records/presence';
import type { Rule } from '../../src/contracts/records/forwarding';
import { type Availability, type GroupSetup } from '../../src/domain/routing/plan';

/** How long what admins configure is reused (a change reaches calls within this). */
export const CONFIG_TTL_MS = 10_000;
/**
 * How long presence and do-not-disturb are reused when this server does not follow the Sync
 * service's webhooks (an operator's own webhook URL on it: followEvents is never called): not at
 * all, so every call reads them afresh (calls at the same moment share one read). A person who
 * picks Away or turns do not disturb on sees it at once, and so do colleagues on /users; a call a
 * second later must not ring them either.
 * Reused for 3 s, they routed a group call 2.5 s after Ann came back from Away and Bob turned do not
 * disturb on as if neither had happened: Bob rang, Ann did not (day-one's browser suite on the
 * twins). The last read is still kept, as the stale copy a call is routed on when Sync does not
 * answer within a second (cache.ts). Twilio allows 20 reads a second of each object, in bursts of
 * 10 s (https://www.twilio.com/docs/sync/limits): the `presence` map and each person's settings
 * document are read once per call. Following the webhooks, a call reads neither (live-copy.ts).
 */
export const PRESENCE_TTL_MS = 0;

/**
 * How often the copy that Sync's events keep current is read whole again all the same (an event
 * lost on the way), in the background: a call never waits for it.
 */
export const LIVE_REFRESH_MS = 30_000;

/**
 * How much longer a read waits for fresh presence when the stale copy has no item for someone asked
 * about, before calling them offline: within Twilio's 15 s for a webhook's answer, after routing's
 * other reads (each waits a second for fresh data before taking its stale copy).
 */
export const ABSENT_PATIENCE_MS = 3000;

/** Whether someone can take a call, from what Sync says and what this server saw. */
export function availabilityFrom(
  presence: StoredMapItem | undefined,
  doNotDisturb: boolean,
  onCallHere: boolean,
  now: number,
): Availability {
  // No item, or one past its ttl (Twilio deletes it soon after): the browser stopped refreshing it.
  if (!presence || (presence.expiresAt !== null && presence.expiresAt <= now)) return 'offline';
  // Do not disturb is their explicit wish: it holds on a call too (a direct call is then refused).
  if (doNotDisturb) return 'doNotDisturb';
  if (presence.data.onCall === true || onCallHere) return 'onCall';
  // Away takes them out of group calls too.
  return presenceRecord.read(presence.data).status === 'away' ? 'away' : 'available';
}

/**
 * Whether Twilio lists a call of this person's in progress; null when it could not be asked (what
 * was read then stands).
 */
export type LiveCallCheck = (identity: string) => Promise<boolean | null>;

/** A presence item as it would read without its "on a call". */
const offCall = (item: StoredMapItem): StoredMapItem => ({
  ...item,
  data: { ...item.data, onCall: false },
});

/** What decides someone's availability, as read. */
interface Read {
  item: StoredMapItem | undefined;
  doNotDisturb: boolean;
}

export interface Prepared {
  setupOf: (groupId: string) => GroupSetup | null;
  availabilityOf: (identity: string) => Availability;
}

/**
 * A change to presence or do not disturb, as Sync's webhooks tell it (sync-events.ts). `order` is
 * the event's place among the key's events (Sync's EventId or the document's revision; null when
 * not given); `byServer`, that the change came through the REST API (this server's own: an
 * on-call flag, a removal), which keeps the item's ttl; `made`, that the object was made anew.
 */
export type SyncChange =
  | {
      kind: 'presence';
      identity: string;
      data: JsonObject | null;
      order: number | null;
      byServer: boolean;
    }
  | {
      kind: 'settings';
      identity: string;
      data: JsonObject | null;
      order: number | null;
      made: boolean;
    }
  /** The presence map itself was made or removed: the copy is read whole again. */
  | { kind: 'presenceMap' };

export interface RoutingData {
  /** Every ring group, by id. */
  groups(): Promise<Map<string, Group>>;
  /** Every ring group read now, not the copy kept (an admin may have saved one a moment ago). */
  groupsNow(): Promise<Map<string, Group>>;
  /** Every ring group as last read, without reading Sync (empty before the first read). */
  peekGroups(): Map<string, Group>;
  /**
   * This server just changed a ring group or an announcement (groups/routes.ts,
   * guidance/announcement-routes.ts): the copies kept of them are read again when next asked, so
   * the next call is routed on what the admin saved rather than on a copy read a moment before.
   */
  configChanged(): void;
  /** The group whose number (an extension or a phone number) is `number`, or null. */
  groupByNumber(number: string): Promise<{ id: string; group: Group } | null>;
  /** The group `id`, read again once when the last read did not have it (a group made since). */
  groupById(id: string): Promise<Group | null>;
  /**
   * Loads everything a decision about a call to `groupId` may read; with `ask`, whoever reads as
   * on a call is asked about (Twilio's own account: this server's may be behind).
   */
  prepare(groupId: string, ask?: LiveCallCheck): Promise<Prepared>;
  /** The group with this number as last read, without reading Sync (the fallback's), or null. */
  peekGroupByNumber(number: string): { id: string; group: Group } | null;
  /**
   * Someone's availability now (a direct call to them); with `ask`, "on a call" or not is Twilio's
   * answer where it has one.
   */
  availability(identity: string, ask?: LiveCallCheck): Promise<Availability>;
  /** An announcement (`guidance` map item), or null. */
  guidance(id: string): Promise<JsonObject | null>;
  /**
   * From now on presence and do not disturb follow Sync's events (the service's webhooks point at
   * this server, sync-events.ts): a copy of both is read (in the background) and changed by each
   * {@link syncChanged}, and calls read neither.
   */
  followEvents(): void;
  /**
   * Sync's events stopped arriving (events-check.ts): calls read presence and do not disturb again,
   * and the copies are forgotten (read whole when events are followed again).
   */
  stopFollowing(): void;
  /** Whether presence and do not disturb follow Sync's events. */
  following(): boolean;
  /** A change Sync reported; nothing unless {@link followEvents} was called. */
  syncChanged(change: SyncChange): void;
  /**
   * This server's own write to someone's presence item, which Sync took (on-call.ts): the copy
   * Sync's events keep takes it at once. Its event comes later (one webhook at a time, after every
   * change before it), and until then routing read the person as still on the call they had just
   * ended, and a group call a moment after went to voicemail with them free.
   *
   * And an "on a call" this server wrote no longer counts once it has seen that person's calls end:
   * its "off the call" write may wait seconds while Sync refuses it (429, 5xx: retried, then tried
   * again later), and routing read Sync's copy meanwhile (CI's twilio-faults failures: the "on a
   * call" of a call already over landed through the retries just before the next call).
   */
  wrote(identity: string, data: JsonObject): void;
}

export function createRoutingData(deps: {
  rest: SyncRest;
  /** Whether this server knows the person to be on a call it carries. */
  onCall: (identity: string) => boolean;
  now?: () => number;
  /**
   * The ttl browsers give their presence item (identity/presence.ts): an item a browser just wrote
   * lapses this long after its event, unless renewed.
   */
  presenceTtlSeconds?: number;
  log?: (message: string) => void;
}): RoutingData {
  const now = deps.now ?? Date.now;
  const { rest } = deps;
  const groupsCache = new TtlCache<Map<string, Group>>(CONFIG_TTL_MS, now);
  const setupCache = new TtlCache<GroupSetup | null>(CONFIG_TTL_MS, now);
  const guidanceCache = new TtlCache<JsonObject | null>(CONFIG_TTL_MS, now);
  const presenceCache = new TtlCache<Map<string, StoredMapItem>>(PRESENCE_TTL_MS, now);
  const dndCache = new TtlCache<boolean>(PRESENCE_TTL_MS, now);

  const loadGroups = async () => {
    const out = new Map<string, Group>();
    for (const [id, item] of await rest.mapItems(GROUPS.name))
      out.set(id, groupRecord.read(item.data));
    return out;
  };
  const groups = () => groupsCache.get('all', loadGroups);

  const setup = (id: string) =>
    setupCache.get(id, async () => {
      const group = (await groups()).get(id);
      if (!group) return null;
      const names = groupObjects(id);
      const [schedule, calendar, rules] = await Promise.all([
        rest.document(names.schedule),
        rest.document(names.calendar),
        rest.listItems(names.forwarding, 200),
      ]);
      return {
        id,
        group,
        schedule: schedule ? scheduleFromData(schedule) : null,
        calendar: calendar ? calendarFromData(calendar) : null,
        rules: rules.map((item) => ruleFromData(item.data)).filter((r): r is Rule => r !== null),
      };
    });

  const doNotDisturb = (identity: string) =>
    dndCache.get(identity, async () => {
      const settings = await rest.document(SETTINGS.name(identity));
      return settings !== null && settingsRecord.read(settings).doNotDisturb;
    });

  const presenceMap = () => rest.mapItems(PRESENCE.name);

  /** The "on a call" this server last wrote into each person's item ({@link RoutingData.wrote}). */
  const wroteOnCall = new Map<string, boolean>();
  /**
   * Someone's item as routing reads it: its "on a call" dropped when that is this server's own,
   * written for calls it has since seen end (another server's, or one from before a restart, counts).
   */
  const asRead = (identity: string, item: StoredMapItem | undefined): StoredMapItem | undefined =>
    item?.data.onCall === true && wroteOnCall.get(identity) === true && !deps.onCall(identity)
      ? offCall(item)
      : item;
  /** Someone's availability at `at`, from their item (as routing reads it) and do not disturb. */
  const availabilityAt = (
    identity: string,
    item: StoredMapItem | undefined,
    doNotDisturb: boolean,
    at: number,
  ): Availability =>
    availabilityFrom(asRead(identity, item), doNotDisturb, deps.onCall(identity), at);

  // Followed from Sync's events (followEvents): every settings document's do not disturb, by person.
  let live = false;
  const presenceTtlMs = (deps.presenceTtlSeconds ?? 75) * 1000;
  const livePresence = new LiveCopy<StoredMapItem>(presenceMap, LIVE_REFRESH_MS, now);
  const liveDnd = new LiveCopy<boolean>(
    async () => {
      const out = new Map<string, boolean>();
      for (const [name, data] of await rest.documents(SETTINGS.prefix)) {
        const identity = SETTINGS.idOf(name);
        if (identity !== null) out.set(identity, settingsRecord.read(data).doNotDisturb);
      }
      return out;
    },
    LIVE_REFRESH_MS,
    now,
  );

  /**
   * From the copies Sync's events keep current: nothing is read, unless an item's ttl is in doubt,
   * or (`absentInDoubt`: a direct call) the person has no item in the copy.
   */
  async function followed(people: string[], absentInDoubt = false): Promise<Map<string, Read>> {
    const [read, dnd] = await Promise.all([livePresence.get(), liveDnd.get()]);
    let presence = read;
    // An item past its ttl in the copy may have been renewed since the copy was read (a renewal
    // sends no event): read again before calling them offline (the read drops lapsed items).
    const doubt = (identity: string) => {
      const expiresAt = presence.get(identity)?.expiresAt ?? null;
      return expiresAt !== null && expiresAt <= now() && livePresence.readAt() < expiresAt;
    };
    // Someone just signed in whose presence event is still on its way (Sync sends them one at a
    // time; 60 people signing in at once queued them for seconds): a direct call to them was
    // refused as to someone offline (the voice bench's 31603 "Decline" while it set its calls up).
    // A group call does not wait: its members who are offline are the usual case.
    const absent = people.filter((identity) => absentInDoubt && !presence.has(identity));
    if (people.some(doubt))
      presence = await livePresence.fresh(ABSENT_PATIENCE_MS).catch(() => presence);
    // Their own item, read now: the whole map again could be a read begun before they signed in
    // (a refresh under way is shared), and with hundreds of people a slow one.
    if (absent.length > 0) {
      const read = await settleWithin(
        Promise.all(absent.map((identity) => rest.getMapItem(PRESENCE.name, identity))),
        ABSENT_PATIENCE_MS,
        () => {
          deps.log?.(
            `routing: ${absent.join(', ')} not in presence and their item could not be read within ${ABSENT_PATIENCE_MS} ms: taken as offline`,
          );
          return [];
        },
      );
      const found = read.flatMap((item, i) => (item ? [[absent[i]!, item] as const] : []));
      if (found.length > 0) presence = new Map([...presence, ...found]);
    }
    return new Map(
      people.map((identity) => [
        identity,
        { item: presence.get(identity), doNotDisturb: dnd.get(identity) ?? false },
      ]),
    );
  }

  /** What decides each person's availability: their presence item and do not disturb. */
  async function reads(people: Iterable<string>, direct: boolean): Promise<Map<string, Read>> {
    const unique = [...new Set(people)];
    if (live) return followed(unique, direct);
    const [read, dnd] = await Promise.all([
      presenceCache.read('all', presenceMap),
      Promise.all(unique.map(doNotDisturb)),
    ]);
    let presence = read.value;
    // The stale copy (Sync slower than a second) may be from before someone signed in: with no item
    // there they would be called offline, a direct call refused and a group call not ring them (the
    // likeliest cause of the voice bench's refusal at 30 calls). They wait longer for a fresh read.
    if (read.stale && unique.some((identity) => !presence.has(identity)))
      presence = (await presenceCache.read('all', presenceMap, ABSENT_PATIENCE_MS)).value;
    return new Map(
      unique.map((identity, i) => [
        identity,
        { item: presence.get(identity), doNotDisturb: dnd[i] ?? false },
      ]),
    );
  }

  /**
   * Each person's availability. With `ask` (Twilio's Calls resource, server/calls/index.ts), "on a
   * call" is Twilio's word where this server's could be behind: its status callbacks come as
   * separate requests, late or out of order
   * (https://www.twilio.com/docs/voice/api/call-resource#statuscallbackevent), so a colleague who
   * just hung up would be skipped by a group call, or refused by a direct one, as busy. Whoever reads
   * as on a call is asked about; for a direct call (`direct`) whoever reads as available too (one
   * who just answered would be rung and miss the call), in parallel with the reads. Someone Twilio
   * could not be asked about keeps what was read.
   */
  async function availabilities(
    people: Iterable<string>,
    direct = false,
    ask?: LiveCallCheck,
  ): Promise<Map<string, Availability>> {
    const unique = [...new Set(people)];
    const early = direct && ask ? new Map(unique.map((id) => [id, ask(id)])) : null;
    const read = await reads(unique, direct);
    const at = now();
    const out = new Map<string, Availability>();
    for (const [identity, r] of read)
      out.set(identity, availabilityAt(identity, r.item, r.doNotDisturb, at));
    if (!ask) return out;
    const asked = [...out]
      .filter(([, a]) => a === 'onCall' || (early !== null && a === 'available'))
      .map(([identity]) => identity);
    const answers = await Promise.all(asked.map((id) => early?.get(id) ?? ask(id)));
    asked.forEach((identity, i) => {
      const liveCall = answers[i];
      const was = out.get(identity);
      if (liveCall === true && was === 'available') out.set(identity, 'onCall');
      if (liveCall === false && was === 'onCall') {
        const r = read.get(identity)!;
        out.set(identity, availabilityFrom(r.item && offCall(r.item), r.doNotDisturb, false, at));
      }
    });
    return out;
  }

  return {
    groups,
    // Afresh; when Sync cannot be read, calls are still routed on the copy kept.
    groupsNow: () => groupsCache.fresh('all', loadGroups),
    peekGroups: () => groupsCache.peek('all') ?? new Map<string, Group>(),
    configChanged() {
      groupsCache.clear();
      setupCache.clear();
      guidanceCache.clear();
    },
    async groupByNumber(number) {
      const wanted = normaliseNumber(number);
      if (wanted === '') return null;
      const find = (all: Map<string, Group>) => {
        for (const [id, group] of all)
          if (normaliseNumber(group.number) === wanted) return { id, group };
        return null;
      };
      // A number no group had when the list was read may be a group made since (an admin saves a
      // group and calls it at once): the list is read again before the number is called unknown.
      const cached = groupsCache.peek('all');
      const found = find(await groups());
      if (found || cached === undefined) return found;
      groupsCache.delete('all');
      return find(await groups());
    },
    async groupById(id) {
      const cached = groupsCache.peek('all');
      const found = (await groups()).get(id);
      if (found || cached === undefined) return found ?? null;
      groupsCache.delete('all');
      return (await groups()).get(id) ?? null;
    },
    async prepare(groupId, ask) {
      // Read ahead, in parallel: after the groups (cached), every group's setup, presence and the
      // do-not-disturb of every member at once, whichever groups the engine's forwarding reaches.
      // The rounds one after another (the group, then each group it forwards to, then who can take
      // a call) once came to five, against Twilio's 15 s for an answer (docs/twilio.md).
      const all = await groups();
      const members = new Set<string>();
      for (const group of all.values()) for (const m of group.members) members.add(m);
      const [loaded, can] = await Promise.all([
        Promise.all([...all.keys()].map(setup)),
        availabilities(members, false, ask),
      ]);
      const setups = new Map<string, GroupSetup | null>();
      const targets = new Set<string>();
      for (const s of loaded) {
        if (!s) continue;
        setups.set(s.id, s);
        for (const r of s.rules)
          if (r.target.kind === 'user' && !can.has(r.target.identity))
            targets.add(r.target.identity);
      }
      // A rule may send calls to someone in no group: one more round, for them only.
      if (targets.size > 0)
        for (const [who, a] of await availabilities(targets, false, ask)) can.set(who, a);
      if (!setups.has(groupId)) setups.set(groupId, null);
      return {
        setupOf: (id) => setups.get(id) ?? null,
        availabilityOf: (identity) => can.get(identity) ?? 'offline',
      };
    },
    peekGroupByNumber(number) {
      const wanted = normaliseNumber(number);
      for (const [id, group] of groupsCache.peek('all') ?? new Map<string, Group>())
        if (wanted !== '' && normaliseNumber(group.number) === wanted) return { id, group };
      return null;
    },
    async availability(identity, ask) {
      return (await availabilities([identity], true, ask)).get(identity) ?? 'offline';
    },
    guidance: (id) =>
      guidanceCache.get(
        id,
        async () => (await rest.getMapItem(ANNOUNCEMENTS.name, id))?.data ?? null,
      ),
    followEvents() {
      live = true;
      // Read ahead: the first call finds the copies there.
      livePresence.get().catch(() => undefined);
      liveDnd.get().catch(() => undefined);
    },
    stopFollowing() {
      live = false;
      livePresence.clear();
      liveDnd.clear();
    },
    following: () => live,
    syncChanged(change) {
      if (!live) return;
      if (change.kind === 'presenceMap') {
        livePresence.clear();
        return;
      }
      if (change.kind === 'settings') {
        const dnd = change.data === null ? null : settingsRecord.read(change.data).doNotDisturb;
        liveDnd.apply(change.identity, dnd, change.order, change.made);
        return;
      }
      // A browser's write sets the ttl it is told (from now); the server's keeps the item's.
      const before = livePresence.peek(change.identity);
      const expiresAt = change.byServer ? (before?.expiresAt ?? null) : now() + presenceTtlMs;
      livePresence.apply(
        change.identity,
        change.data === null ? null : { data: change.data, expiresAt },
        change.order,
      );
    },
    wrote(identity, data) {
      wroteOnCall.set(identity, data.onCall === true);
      const before = livePresence.peek(identity);
      // No order: the write's own event, when it comes, is applied after it all the same.
      if (live && before) livePresence.apply(identity, { ...before, data }, null);
    },
  };
}
