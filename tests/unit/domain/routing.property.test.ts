/**
 * The routing engine against invariants and an oracle, over random worlds: up to five groups
 * (random members with random availability, strategy, ring timeout, announcements, hours in London,
 * New York or UTC or none, holidays, and rules of every kind, group targets included, so loops and
 * long chains are common, and a group that does not exist), at instants around the 2026
 * daylight-saving changes. The oracle re-derives each group's part of the plan from the rules as
 * the engine's header states them, with its own rule choice (filter, then a stable sort by order).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide } from '../../../src/domain/routing/engine';
import { stateAt } from '../../../src/domain/hours';
import {
  GUIDANCE_SLOTS,
  type GroupGuidance,
  type GuidanceSlot,
} from '../../../src/contracts/records/group';
import type { Rule, Target, When } from '../../../src/contracts/records/forwarding';
import { WEEKDAYS, type Schedule, type TimeRange } from '../../../src/contracts/records/schedule';
import type { Calendar } from '../../../src/contracts/records/calendar';
import {
  MAX_HOPS,
  type Availability,
  type Decision,
  type GroupSetup,
  type Plan,
  type RoutingInput,
} from '../../../src/domain/routing/plan';

const PEOPLE = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7'];
const GROUP_IDS = ['g0', 'g1', 'g2', 'g3', 'g4'];
/** Rules may point at this one; it never exists. */
const DELETED = 'g-gone';
const AVAILABILITIES: Availability[] = ['available', 'onCall', 'away', 'doNotDisturb', 'offline'];
const WHENS: When[] = ['always', 'noAnswer', 'busy', 'closed', 'holiday'];
const CLOSED_SCHEDULE: Schedule = { timeZone: 'UTC', week: {} };

/** Instants of the 2026 changes (and an ordinary day) per zone. */
const PIVOTS: Record<string, string[]> = {
  'Europe/London': ['2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z', '2026-06-10T12:00:00Z'],
  'America/New_York': ['2026-03-08T07:00:00Z', '2026-11-01T06:00:00Z'],
  UTC: ['2026-12-25T12:00:00Z'],
};
const ZONES = Object.keys(PIVOTS);

const hhmm = (m: number) =>
  m === 1440
    ? '24:00'
    : `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

/**
 * Up to 3 sorted ranges on a 30-minute grid, often in the small hours where clocks change, or the
 * whole day (so that groups are often open and ring).
 */
const dayRanges: fc.Arbitrary<TimeRange[]> = fc
  .oneof(
    fc.uniqueArray(fc.integer({ min: 0, max: 48 }), { maxLength: 6 }),
    fc.uniqueArray(fc.integer({ min: 0, max: 8 }), { maxLength: 6 }),
    fc.constant([0, 48]),
  )
  .map((marks) => {
    const sorted = [...marks].sort((a, b) => a - b);
    const out: TimeRange[] = [];
    for (let i = 0; i + 1 < sorted.length; i += 2)
      out.push({ start: hhmm(sorted[i]! * 30), end: hhmm(sorted[i + 1]! * 30) });
    return out;
  });

const schedule: fc.Arbitrary<Schedule | null> = fc.option(
  fc
    .record({
      timeZone: fc.constantFrom(...ZONES),
      days: fc.tuple(...WEEKDAYS.map(() => dayRanges)),
    })
    .map(({ timeZone, days }) => ({
      timeZone,
      week: Object.fromEntries(WEEKDAYS.map((d, i) => [d, days[i]!])),
    })),
  { freq: 6 },
);

const dateAround = (base: number, offsetDays: number) =>
  new Date(base + offsetDays * 86_400_000).toISOString().slice(0, 10);

const calendar = (base: number): fc.Arbitrary<Calendar | null> =>
  fc.option(
    fc
      .array(fc.tuple(fc.integer({ min: -3, max: 3 }), fc.integer({ min: 0, max: 1 })), {
        maxLength: 3,
      })
      .map((hs) => ({
        holidays: hs.map(([from, len], i) => ({
          id: `h${i}`,
          label: `Holiday ${i}`,
          start: dateAround(base, from),
          end: dateAround(base, from + len),
        })),
      })),
    { freq: 4 },
  );

const target: fc.Arbitrary<Target> = fc.oneof(
  fc.constantFrom(...PEOPLE, 'stranger').map((identity): Target => ({ kind: 'user', identity })),
  fc.constantFrom(...GROUP_IDS, DELETED).map((groupId): Target => ({ kind: 'group', groupId })),
  fc.constant<Target>({ kind: 'number', number: '+442079460000' }),
  fc.constant<Target>({ kind: 'voicemail' }),
);

const rule: fc.Arbitrary<Rule> = fc.record({
  when: fc.constantFrom(...WHENS),
  after: fc.integer({ min: 5, max: 300 }),
  target,
  // Few values, so equal orders happen.
  order: fc.integer({ min: 0, max: 4 }),
});

const storedRule: fc.Arbitrary<Rule> = fc.record({
  when: fc.constantFrom(...WHENS),
  after: fc.oneof(
    fc.integer({ min: -10, max: 400 }),
    fc.double({ min: -10, max: 400, noNaN: true }),
  ),
  target,
  order: fc.oneof(fc.integer({ min: 0, max: 4 }), fc.double({ min: -5, max: 5, noNaN: true })),
});

/** A rule to the next group (g0 → g1 → …), so chains as long as MAX_HOPS and beyond are common. */
const chainTo = (id: string): fc.Arbitrary<Rule> =>
  fc.record({
    // Mostly always, which applies in every situation.
    when: fc.oneof(
      { arbitrary: fc.constant<When>('always'), weight: 3 },
      fc.constantFrom(...WHENS),
    ),
    after: fc.integer({ min: 5, max: 300 }),
    target: fc.constant<Target>({ kind: 'group', groupId: `g${Number(id.slice(1)) + 1}` }),
    order: fc.integer({ min: 0, max: 4 }),
  });

const guidance = (id: string): fc.Arbitrary<GroupGuidance> =>
  fc
    .subarray([...GUIDANCE_SLOTS])
    .map((slots) => Object.fromEntries(slots.map((s) => [s, `${id}-${s}`])) as GroupGuidance);

/**
 * A group as the forms allow it or, `tolerant`, as stored data can hold it once read
 * (`groupRecord.read`, `ruleFromData`): any whole ring timeout, any delay, a member twice or unknown.
 */
const setup = (id: string, base: number, tolerant: boolean): fc.Arbitrary<GroupSetup> =>
  fc.record({
    id: fc.constant(id),
    group: fc.record({
      name: fc.constantFrom(id.toUpperCase(), ''),
      number: fc.constant('200'),
      members: tolerant
        ? fc.array(fc.constantFrom(...PEOPLE, 'stranger'), { maxLength: 6 })
        : fc.uniqueArray(fc.constantFrom(...PEOPLE), { maxLength: 6 }),
      strategy: fc.constantFrom('simultaneous' as const, 'sequential' as const),
      // Round values too, so no-answer delays fall on and between whole turns.
      ringTimeout: tolerant
        ? fc.integer({ min: -10, max: 200 })
        : fc.oneof(fc.constantFrom(5, 10, 20, 30), fc.integer({ min: 5, max: 120 })),
      // Absent (a group stored before it existed: the no-answer rule's delay stands in), or set.
      noAnswerTimeout: fc.option(
        tolerant
          ? fc.oneof(
              fc.integer({ min: -10, max: 400 }),
              fc.double({ min: -10, max: 400, noNaN: true }),
            )
          : fc.oneof(fc.constantFrom(5, 20, 40, 60), fc.integer({ min: 5, max: 300 })),
        { nil: undefined },
      ),
      guidance: guidance(id),
    }),
    schedule,
    calendar: calendar(base),
    rules: fc
      .tuple(
        fc.array(tolerant ? storedRule : rule, { maxLength: 5 }),
        fc.option(chainTo(id), { freq: 2 }),
      )
      .map(([rules, chain]) => (chain ? [...rules, chain] : rules)),
  });

interface World {
  setups: GroupSetup[];
  presence: Record<string, Availability>;
  at: number;
  externalCalls: boolean;
  named: boolean;
}

const worldsOf = (tolerant: boolean): fc.Arbitrary<World> =>
  fc.constantFrom(...Object.values(PIVOTS).flat()).chain((pivot) => {
    const base = Date.parse(pivot);
    return fc.record({
      setups: fc
        .oneof(fc.constant(GROUP_IDS.length), fc.integer({ min: 1, max: GROUP_IDS.length }))
        .chain((n) => fc.tuple(...GROUP_IDS.slice(0, n).map((id) => setup(id, base, tolerant)))),
      presence: fc.record(
        Object.fromEntries(
          PEOPLE.map((p) => [
            p,
            fc.oneof(
              { arbitrary: fc.constant<Availability>('available'), weight: 2 },
              fc.constantFrom(...AVAILABILITIES),
            ),
          ]),
        ),
      ),
      at: fc.integer({ min: base - 2 * 86_400_000, max: base + 86_400_000 }),
      externalCalls: fc.boolean(),
      named: fc.boolean(),
    });
  });
const worlds = worldsOf(false);

function inputOf(w: World, groupId = 'g0'): RoutingInput {
  const byId = new Map(w.setups.map((s) => [s.id, s]));
  return {
    groupId,
    at: w.at,
    setupOf: (id) => byId.get(id) ?? null,
    availabilityOf: (identity) => w.presence[identity] ?? 'offline',
    externalCalls: w.externalCalls,
    ...(w.named ? { nameOf: (identity: string) => identity.toUpperCase() } : {}),
  };
}

/** Every node of a plan (a tree whose branches may share nodes), failing past `limit`. */
function nodes(plan: Plan, limit = 10_000): Plan[] {
  const out = new Set<Plan>();
  const stack: Plan[] = [plan];
  while (stack.length > 0) {
    const p = stack.pop()!;
    if (out.has(p)) continue;
    expect(out.size).toBeLessThan(limit);
    out.add(p);
    if (p.kind === 'announce' || p.kind === 'forward') stack.push(p.then);
    else if (p.kind === 'ring') stack.push(p.onNoAnswer, p.onBusy);
    else if (p.kind === 'dial') stack.push(p.onNoAnswer);
  }
  return [...out];
}

/** The group a node belongs to. */
const ownerOf = (p: Plan): string => (p.kind === 'forward' ? p.rule.groupId : p.groupId);

/** Every way through a plan: the nodes from the root to a leaf. */
function paths(plan: Plan): Plan[][] {
  const out: Plan[][] = [];
  const walk = (p: Plan, before: Plan[]) => {
    const here = [...before, p];
    if (p.kind === 'announce' || p.kind === 'forward') walk(p.then, here);
    else if (p.kind === 'ring') {
      walk(p.onNoAnswer, here);
      if (p.onBusy !== p.onNoAnswer) walk(p.onBusy, here);
    } else if (p.kind === 'dial') walk(p.onNoAnswer, here);
    else out.push(here);
  };
  walk(plan, []);
  return out;
}

/** The oracle's rule choice: the rules for the first `when` that has any, lowest order first. */
function oracleRule(rules: readonly Rule[], whens: readonly When[]): Rule | null {
  for (const when of whens) {
    const found = rules
      .map((r, i) => ({ r, i }))
      .filter(({ r }) => r.when === when)
      .sort((a, b) => a.r.order - b.r.order || a.i - b.i);
    if (found.length > 0) return found[0]!.r;
  }
  return null;
}

/**
 * Checks `plan` as the part of the call decided in `groupId`, entered through `path`, and returns
 * the cuts the oracle expects along the way.
 */
function checkGroup(w: World, d: Decision, groupId: string, plan: Plan, path: string[]): string[] {
  const input = inputOf(w);
  const s = input.setupOf(groupId)!;
  const g = s.group;
  const state = stateAt(s.schedule ?? CLOSED_SCHEDULE, s.calendar, w.at);
  const available = (id: string) => w.presence[id] === 'available';
  const vm = (reason?: string): Partial<Plan> => ({
    kind: 'voicemail',
    groupId,
    guidanceId: g.guidance.voicemail ?? null,
    ...(reason === undefined ? {} : { reason }),
  });
  const cuts: string[] = [];

  // The announcement: the slot for the situation, the closed one standing in on a holiday.
  const slots: GuidanceSlot[] =
    state.reason === 'holiday'
      ? ['holiday', 'closed']
      : [state.reason === 'open' ? 'open' : 'closed'];
  const slot = slots.find((sl) => g.guidance[sl] !== undefined);
  let p = plan;
  if (slot) {
    expect(p).toMatchObject({ kind: 'announce', groupId, slot, guidanceId: g.guidance[slot] });
    p = (p as Extract<Plan, { kind: 'announce' }>).then;
  }
  expect(p.kind).not.toBe('announce');

  const applied = (r: Rule, q: Plan): void => {
    expect(q).toMatchObject({
      kind: 'forward',
      rule: { groupId, when: r.when, order: r.order },
      target: r.target,
    });
    const then = (q as Extract<Plan, { kind: 'forward' }>).then;
    const t = r.target;
    const seconds = g.ringTimeout;
    if (t.kind === 'voicemail') expect(then).toMatchObject(vm());
    else if (t.kind === 'user') {
      if (available(t.identity)) {
        expect(then).toMatchObject({
          kind: 'ring',
          groupId,
          identities: [t.identity],
          seconds,
          onNoAnswer: vm(),
          onBusy: vm(),
        });
      } else expect(then).toMatchObject(vm());
    } else if (t.kind === 'number') {
      expect(then).toMatchObject(
        w.externalCalls
          ? { kind: 'dial', groupId, number: t.number, seconds, onNoAnswer: vm() }
          : vm(),
      );
    } else if (path.includes(t.groupId) || path.length >= MAX_HOPS || !input.setupOf(t.groupId)) {
      expect(then).toMatchObject(vm());
      const name = (id: string) => input.setupOf(id)?.group.name || id;
      const way = [...path, t.groupId].map(name).join(' → ');
      cuts.push(
        path.includes(t.groupId)
          ? `forwarding loop cut: ${way}`
          : path.length >= MAX_HOPS
            ? `forwarding chain too long, cut: ${way}`
            : `forwarding to a group that no longer exists: ${t.groupId}`,
      );
    } else {
      cuts.push(...checkGroup(w, d, t.groupId, then, [...path, t.groupId]));
    }
  };
  const fallBack = (whens: When[], q: Plan): void => {
    const r = oracleRule(s.rules, whens);
    if (r) applied(r, q);
    else expect(q).toMatchObject(vm());
  };

  if (state.reason !== 'open') {
    fallBack(
      state.reason === 'holiday' ? ['holiday', 'closed', 'always'] : ['closed', 'always'],
      p,
    );
    return cuts;
  }
  const always = oracleRule(s.rules, ['always']);
  if (always) {
    applied(always, p);
    return cuts;
  }
  const ready = g.members.filter(available);
  if (ready.length === 0) {
    fallBack(['busy', 'noAnswer'], p);
    return cuts;
  }
  // The no-answer time: the group's own, else (stored before it existed) its no-answer rule's delay.
  const atLeast = g.noAnswerTimeout ?? oracleRule(s.rules, ['noAnswer'])?.after ?? 0;
  if (g.strategy === 'simultaneous') {
    expect(p).toMatchObject({
      kind: 'ring',
      groupId,
      identities: ready,
      seconds: Math.max(g.ringTimeout, atLeast),
    });
    const r = p as Extract<Plan, { kind: 'ring' }>;
    fallBack(['noAnswer'], r.onNoAnswer);
    fallBack(['busy', 'noAnswer'], r.onBusy);
    return cuts;
  }
  // In order: every one who can take the call gets a turn of the ring time; the last one rings
  // on until the no-answer time, when that is longer.
  const turns = ready.map((identity, k) => ({
    identity,
    seconds:
      k < ready.length - 1 ? g.ringTimeout : Math.max(g.ringTimeout, atLeast - k * g.ringTimeout),
  }));
  turns.forEach((t, k) => {
    expect(p).toMatchObject({
      kind: 'ring',
      groupId,
      identities: [t.identity],
      seconds: t.seconds,
    });
    const r = p as Extract<Plan, { kind: 'ring' }>;
    if (k < turns.length - 1) {
      expect(r.onBusy).toBe(r.onNoAnswer);
      p = r.onNoAnswer;
    } else {
      fallBack(['noAnswer'], r.onNoAnswer);
      fallBack(['busy', 'noAnswer'], r.onBusy);
    }
  });
  return cuts;
}

describe('decide over random groups, rules, presence and instants', () => {
  it('agrees with the oracle: situation, announcements, rule applied, who rings and for how long, cuts', () => {
    fc.assert(
      fc.property(worlds, (w) => {
        const d = decide(inputOf(w));
        const first = w.setups[0]!;
        const state = stateAt(first.schedule ?? CLOSED_SCHEDULE, first.calendar, w.at);
        expect(d.groupId).toBe('g0');
        expect(d.situation).toBe(state.reason);
        expect(d.holiday).toBe(state.holiday?.label ?? null);
        const cuts = checkGroup(w, d, 'g0', d.plan, ['g0']);
        // Each forwarding cut is logged, and nothing else.
        expect(new Set(d.cuts)).toEqual(new Set(cuts));
        expect(d.cuts).toHaveLength(new Set(d.cuts).size);
      }),
      { numRuns: 400 },
    );
  });

  it('holds the invariants on every plan', () => {
    fc.assert(
      fc.property(worlds, (w) => {
        const input = inputOf(w);
        let d: Decision | undefined;
        expect(() => (d = decide(input))).not.toThrow();
        const plan = d!.plan;
        const all = nodes(plan);
        const setupOf = (id: string) => input.setupOf(id)!;

        for (const p of all) {
          expect(p).toBeTypeOf('object');
          expect(p).not.toBeNull();
          expect(['announce', 'ring', 'forward', 'dial', 'voicemail']).toContain(p.kind);
          if (p.kind === 'ring') {
            // Only people who can take a call ring, and someone does.
            expect(p.identities.length).toBeGreaterThan(0);
            for (const id of p.identities) expect(w.presence[id]).toBe('available');
            const { ringTimeout, noAnswerTimeout } = setupOf(p.groupId).group;
            const rule = setupOf(p.groupId).rules.filter((r) => r.when === 'noAnswer');
            const atLeast =
              noAnswerTimeout ?? [...rule].sort((a, b) => a.order - b.order)[0]?.after ?? 0;
            expect(p.seconds).toBeGreaterThanOrEqual(1);
            expect(p.seconds).toBeLessThanOrEqual(Math.max(ringTimeout, atLeast));
          }
          if (p.kind === 'announce') {
            // Only announcements the group chose.
            expect(setupOf(p.groupId).group.guidance[p.slot]).toBe(p.guidanceId);
            expect(['open', 'closed', 'holiday']).toContain(p.slot);
          }
          if (p.kind === 'voicemail') {
            expect(p.guidanceId).toBe(setupOf(p.groupId).group.guidance.voicemail ?? null);
            expect(p.reason).not.toBe('');
          }
        }

        for (const way of paths(plan)) {
          // Every way ends, in a voicemail.
          expect(way.at(-1)!.kind).toBe('voicemail');
          let groups = ['g0'];
          let current = 'g0';
          // The members' turns rung in a row in the current group, and their seconds.
          let turnSeconds = 0;
          for (let i = 0; i < way.length; i++) {
            const p = way[i]!;
            const prev = way[i - 1];
            const s = setupOf(current);
            const state = stateAt(s.schedule ?? CLOSED_SCHEDULE, s.calendar, w.at);
            const underUser = prev?.kind === 'forward' && prev.target.kind === 'user';
            if (p.kind === 'ring' && !underUser) {
              // The group's own members ring only while it is open, and not under an always rule.
              expect(p.groupId).toBe(current);
              expect(state.reason).toBe('open');
              expect(s.rules.some((r) => r.when === 'always')).toBe(false);
              for (const id of p.identities) expect(s.group.members).toContain(id);
              turnSeconds += p.seconds;
              const readyHere = [...new Set(s.group.members)].filter(
                (m) => w.presence[m] === 'available',
              );
              const next = way[i + 1];
              const lastTurn = !(next?.kind === 'ring' && next.groupId === current);
              if (lastTurn && p.identities.every((id) => readyHere.includes(id))) {
                // Every member who can take the call has rung before the no-answer rule, and the
                // ringing lasted the no-answer time at least.
                const noAnswer = s.rules.filter((r) => r.when === 'noAnswer');
                const atLeast =
                  s.group.noAnswerTimeout ??
                  [...noAnswer].sort((a, b) => a.order - b.order)[0]?.after ??
                  0;
                expect(turnSeconds).toBeGreaterThanOrEqual(atLeast);
                if (s.group.strategy === 'sequential')
                  expect(turnSeconds).toBeGreaterThanOrEqual(
                    readyHere.length * s.group.ringTimeout,
                  );
              }
            }
            if (p.kind === 'ring' && underUser) {
              // A person forwarded to rings alone.
              expect(prev.target).toEqual({ kind: 'user', identity: p.identities[0] });
              expect(p.identities).toHaveLength(1);
            }
            if (p.kind === 'forward') {
              expect(p.rule.groupId).toBe(current);
              const next = p.then;
              if (p.target.kind === 'group') {
                const entered = p.target.groupId !== current && ownerOf(next) === p.target.groupId;
                if (entered) {
                  // No group twice on a way, and at most MAX_HOPS of them.
                  expect(groups).not.toContain(p.target.groupId);
                  groups = [...groups, p.target.groupId];
                  expect(groups.length).toBeLessThanOrEqual(MAX_HOPS);
                  current = p.target.groupId;
                  turnSeconds = 0;
                } else {
                  // Cut: to the voicemail of the group whose rule would have gone on.
                  expect(next).toMatchObject({ kind: 'voicemail', groupId: current });
                  expect(d!.cuts.length).toBeGreaterThan(0);
                }
              }
            }
          }
        }
      }),
      { numRuns: 400 },
    );
  });

  it('tolerates whatever stored data can hold: never throws, every way ends, rings last 1 s or more', () => {
    fc.assert(
      fc.property(worldsOf(true), (w) => {
        const d = decide(inputOf(w));
        for (const p of nodes(d.plan)) {
          expect(p).toBeTypeOf('object');
          expect(p).not.toBeNull();
          if (p.kind === 'ring') {
            expect(p.identities.length).toBeGreaterThan(0);
            for (const id of p.identities) expect(w.presence[id]).toBe('available');
            expect(p.seconds).toBeGreaterThanOrEqual(1);
            expect(Number.isFinite(p.seconds)).toBe(true);
          }
          if (p.kind === 'dial') expect(p.seconds).toBeGreaterThanOrEqual(1);
        }
        for (const way of paths(d.plan)) expect(way.at(-1)!.kind).toBe('voicemail');
      }),
      { numRuns: 300 },
    );
  });
});
