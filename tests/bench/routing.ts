/**
 * Routing benchmark, side by side in one run:
 * (a) the routing engine's `decide` for a ring group of 50 members (mixed availability) with 20
 *     forwarding rules (some to three other groups, one of which forwards back: a loop to cut) and
 *     a year of holidays, against a plain lookup of the same group: the Map lookups of its group,
 *     schedule, calendar and rules that `setupOf` does, without deciding (target: at most 5×);
 * (b) the Twilio voice webhook's answer time under load against a static response from the same
 *     server (routing-webhook.ts: the real server in Twilio mode on its own twins), and the caller's
 *     answer time with every Sync read 200 ms late.
 */
import { decide } from '../../src/domain/routing/engine';
import { stateAt } from '../../src/domain/hours';
import { fmt, median, percentile, writeSection } from './report';
import { benchRoutingWebhook } from './routing-webhook';
import type { Group, Strategy } from '../../src/contracts/records/group';
import type { Rule, Target, When } from '../../src/contracts/records/forwarding';
import type { Schedule } from '../../src/contracts/records/schedule';
import type { Calendar, Holiday } from '../../src/contracts/records/calendar';
import type { Availability, GroupSetup } from '../../src/domain/routing/plan';

/** Samples per measured kind; each sample times BATCH consecutive calls. */
const SAMPLES = Number(process.env.BENCH_ROUTING_SAMPLES ?? 5_000);
const WARMUP = Number(process.env.BENCH_ROUTING_WARMUP ?? 500);
const BATCH = 32;
/** Calls arrive in time order, one every STEP seconds, through a week (and round again). */
const STEP = 6;
const TARGET = 5;

// --- the fixture ---------------------------------------------------------------------------------

const AVAILABILITY_MIX: [Availability, number][] = [
  ['available', 25],
  ['onCall', 10],
  ['doNotDisturb', 8],
  ['offline', 7],
];

const weekdays = (start: string, end: string): Schedule['week'] => ({
  mon: [{ start, end }],
  tue: [{ start, end }],
  wed: [{ start, end }],
  thu: [{ start, end }],
  fri: [{ start, end }],
});

/** A year of holidays (2026): every Sunday and eight bank holidays, 60 (the UI keeps at most 200). */
function yearOfHolidays(): Calendar {
  const holidays: Holiday[] = [];
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  // 2026-01-04 was a Sunday.
  for (let w = 0; w < 52; w++) {
    const d = day(Date.UTC(2026, 0, 4 + 7 * w));
    holidays.push({ id: `sun-${w}`, label: 'Rest day', start: d, end: d });
  }
  const bank: [string, string, string][] = [
    ['New Year', '2026-01-01', '2026-01-01'],
    ['Good Friday', '2026-04-03', '2026-04-03'],
    ['Easter Monday', '2026-04-06', '2026-04-06'],
    ['Early May', '2026-05-04', '2026-05-04'],
    ['Spring bank holiday', '2026-05-25', '2026-05-25'],
    ['Summer bank holiday', '2026-08-31', '2026-08-31'],
    ['Christmas', '2026-12-24', '2026-12-26'],
    ['Boxing Day (substitute)', '2026-12-28', '2026-12-28'],
  ];
  bank.forEach(([label, start, end], i) => holidays.push({ id: `bank-${i}`, label, start, end }));
  holidays.sort((a, b) => a.start.localeCompare(b.start));
  return { holidays };
}

const rule = (when: When, order: number, target: Target, after = 60): Rule => ({
  when,
  after,
  target,
  order,
});
const toGroup = (groupId: string): Target => ({ kind: 'group', groupId });
const toUser = (identity: string): Target => ({ kind: 'user', identity });
const toNumber: Target = { kind: 'number', number: '+442079460000' };
const toVoicemail: Target = { kind: 'voicemail' };

/** Twenty rules, four of each kind but `always` (which would make every call a forward). */
function twentyRules(members: string[]): Rule[] {
  return [
    rule('noAnswer', 1, toGroup('support'), 60),
    rule('noAnswer', 2, toUser(members[3]!), 45),
    rule('noAnswer', 3, toNumber, 30),
    rule('noAnswer', 4, toVoicemail, 90),
    rule('noAnswer', 5, toGroup('overflow'), 120),
    rule('busy', 1, toGroup('overflow')),
    rule('busy', 2, toUser(members[5]!)),
    rule('busy', 3, toNumber),
    rule('busy', 4, toVoicemail),
    rule('busy', 5, toGroup('night')),
    rule('closed', 1, toGroup('night')),
    rule('closed', 2, toUser(members[7]!)),
    rule('closed', 3, toNumber),
    rule('closed', 4, toVoicemail),
    rule('closed', 5, toGroup('support')),
    rule('holiday', 1, toNumber),
    rule('holiday', 2, toGroup('support')),
    rule('holiday', 3, toUser(members[9]!)),
    rule('holiday', 4, toVoicemail),
    rule('holiday', 5, toGroup('night')),
  ].reverse(); // stored in any order: the engine applies them by `order`
}

export interface RoutingFixture {
  groups: Map<string, Group>;
  schedules: Map<string, Schedule>;
  calendars: Map<string, Calendar>;
  rules: Map<string, Rule[]>;
  presence: Map<string, Availability>;
  setupOf: (id: string) => GroupSetup | null;
  availabilityOf: (identity: string) => Availability;
}

export function routingFixture(strategy: Strategy = 'simultaneous'): RoutingFixture {
  const members: string[] = [];
  const presence = new Map<string, Availability>();
  let n = 0;
  // Interleaved, so every stretch of the list has each kind of availability.
  const mix = AVAILABILITY_MIX.flatMap(([a, count]) => Array<Availability>(count).fill(a));
  for (let i = 0; i < mix.length; i++) {
    const a = mix[(i * 17) % mix.length]!;
    const identity = `person${String(n++).padStart(2, '0')}@example.com`;
    members.push(identity);
    presence.set(identity, a);
  }
  const london: Schedule = {
    timeZone: 'Europe/London',
    week: { ...weekdays('08:00', '18:00'), sat: [{ start: '09:00', end: '13:00' }] },
  };
  const calendar = yearOfHolidays();
  const groups = new Map<string, Group>();
  const schedules = new Map<string, Schedule>();
  const calendars = new Map<string, Calendar>();
  const rules = new Map<string, Rule[]>();
  const add = (id: string, group: Group, schedule: Schedule, cal: Calendar, rs: Rule[]) => {
    groups.set(id, group);
    schedules.set(id, schedule);
    calendars.set(id, cal);
    rules.set(id, rs);
  };
  const guidance = (id: string) => ({
    open: `${id}-open`,
    closed: `${id}-closed`,
    holiday: `${id}-holiday`,
    voicemail: `${id}-vm`,
  });
  add(
    'main',
    {
      name: 'Main line',
      number: '100',
      members,
      strategy,
      ringTimeout: 20,
      guidance: guidance('main'),
    },
    london,
    calendar,
    twentyRules(members),
  );
  add(
    'support',
    {
      name: 'Support',
      number: '101',
      members: members.slice(10, 18),
      strategy: 'sequential',
      ringTimeout: 15,
      guidance: guidance('support'),
    },
    london,
    calendar,
    [rule('noAnswer', 1, toGroup('overflow'), 40), rule('closed', 1, toVoicemail)],
  );
  add(
    'overflow',
    {
      name: 'Overflow',
      number: '102',
      members: members.slice(20, 25),
      strategy: 'simultaneous',
      ringTimeout: 20,
      guidance: {},
    },
    london,
    calendar,
    [rule('noAnswer', 1, toNumber), rule('busy', 1, toGroup('night'))],
  );
  add(
    'night',
    {
      name: 'Night desk',
      number: '103',
      members: members.slice(40, 43),
      strategy: 'simultaneous',
      ringTimeout: 25,
      guidance: { open: 'night-open' },
    },
    { timeZone: 'America/New_York', week: weekdays('09:00', '21:00') },
    { holidays: [] },
    // Back to the main line when closed: from the main line, a loop the engine cuts.
    [rule('closed', 1, toGroup('main')), rule('noAnswer', 1, toVoicemail)],
  );
  const setupOf = (id: string): GroupSetup | null => {
    const group = groups.get(id);
    if (!group) return null;
    return {
      id,
      group,
      schedule: schedules.get(id) ?? null,
      calendar: calendars.get(id) ?? null,
      rules: rules.get(id) ?? [],
    };
  };
  const availabilityOf = (identity: string): Availability => presence.get(identity) ?? 'offline';
  return { groups, schedules, calendars, rules, presence, setupOf, availabilityOf };
}

/** Monday 23 November 2026, 00:00 UTC: a week of calls from there. */
const WEEK_START = Date.UTC(2026, 10, 23);
const WEEK_CALLS = (7 * 24 * 3600) / STEP;
const instantOf = (call: number) => WEEK_START + (call % WEEK_CALLS) * STEP * 1000;

// --- measuring -----------------------------------------------------------------------------------

/** Nanoseconds per call over `BATCH` calls of `fn` from call number `from`. */
function timeBatch(fn: (call: number) => number, from: number): [number, number] {
  let sink = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < BATCH; i++) sink += fn(from + i);
  const ns = Number(process.hrtime.bigint() - t0) / BATCH;
  return [ns, sink];
}

interface Series {
  label: string;
  fn: (call: number) => number;
  ns: number[];
}

/**
 * Runs every series' batches interleaved (rotating who goes first), after a warm-up; `firstCalls`
 * gets the number of each measured sample's first call.
 */
function measure(series: Series[], firstCalls: number[]): number {
  let sink = 0;
  let call = 0;
  for (let s = 0; s < WARMUP + SAMPLES; s++) {
    if (s >= WARMUP) firstCalls.push(call);
    for (let k = 0; k < series.length; k++) {
      const one = series[(s + k) % series.length]!;
      const [ns, out] = timeBatch(one.fn, call);
      sink += out;
      if (s >= WARMUP) one.ns.push(ns);
    }
    call += BATCH;
  }
  return sink;
}

/** What a decision costs to read, so the work cannot be optimised away. */
function weight(p: ReturnType<typeof decide>['plan']): number {
  return p.kind.length + (p.kind === 'ring' ? p.identities.length : 0);
}

/**
 * (b) The other half of the benchmark: the Twilio voice webhook's answer time p95 under
 * load against a static response from the same server (target at most 2×): routing-webhook.ts.
 */
export async function webhookHalf(): Promise<string> {
  return `(b) ${await benchRoutingWebhook()}`;
}

export async function benchRouting(): Promise<string> {
  const simultaneous = routingFixture('simultaneous');
  const sequential = routingFixture('sequential');
  const situations = new Map<string, number>();
  const decideWith =
    (f: RoutingFixture) =>
    (call: number): number => {
      const d = decide({
        groupId: 'main',
        at: instantOf(call),
        setupOf: f.setupOf,
        availabilityOf: f.availabilityOf,
        externalCalls: true,
      });
      return weight(d.plan) + d.cuts.length;
    };
  const series: Series[] = [
    {
      label: 'plain lookup of the group (setupOf: group, schedule, calendar, rules)',
      fn: (call) => {
        const s = simultaneous.setupOf('main')!;
        return s.rules.length + s.group.members.length + (call & 1);
      },
      ns: [],
    },
    { label: 'decide, members rung all at once', fn: decideWith(simultaneous), ns: [] },
    { label: 'decide, members rung in order', fn: decideWith(sequential), ns: [] },
    {
      label: 'decide, all at once, each call in another hour (context: offset read from Intl)',
      fn: (call) => {
        const d = decide({
          groupId: 'main',
          at: WEEK_START + call * 3_601_000,
          setupOf: simultaneous.setupOf,
          availabilityOf: simultaneous.availabilityOf,
          externalCalls: true,
        });
        return weight(d.plan) + d.cuts.length;
      },
      ns: [],
    },
    {
      label: 'plain ring (context): the lookup, then who of the 50 can take a call',
      fn: (call) => {
        const s = simultaneous.setupOf('main')!;
        let ready = 0;
        for (const m of s.group.members)
          if (simultaneous.availabilityOf(m) === 'available') ready++;
        return ready + (call & 1);
      },
      ns: [],
    },
  ];
  // Which situations the week of calls met.
  for (let c = 0; c < WEEK_CALLS; c += 10) {
    const d = decide({
      groupId: 'main',
      at: instantOf(c),
      setupOf: simultaneous.setupOf,
      availabilityOf: simultaneous.availabilityOf,
      externalCalls: true,
    });
    situations.set(d.situation, (situations.get(d.situation) ?? 0) + 1);
  }
  const openCall = decide({
    groupId: 'main',
    at: Date.UTC(2026, 10, 25, 10),
    setupOf: simultaneous.setupOf,
    availabilityOf: simultaneous.availabilityOf,
    externalCalls: true,
  });
  const planBytes = JSON.stringify(openCall.plan).length;
  const readyCount = [...simultaneous.presence.values()].filter((a) => a === 'available').length;
  const firstCalls: number[] = [];
  const sink = measure(series, firstCalls);
  // A sample's calls span BATCH × STEP seconds: nearly all in one situation, its first call's.
  const main = simultaneous.setupOf('main')!;
  const situationOf = (call: number) =>
    stateAt(main.schedule!, main.calendar, instantOf(call)).reason;
  const bySituation = (s: Series, situation: string): number[] =>
    s.ns.filter((_, i) => situationOf(firstCalls[i]!) === situation);
  const [lookup, atOnce, inOrder, cold, plainRing] = series as [
    Series,
    Series,
    Series,
    Series,
    Series,
  ];
  const p = (s: Series, q: 50 | 95) => (q === 50 ? median(s.ns) : percentile(s.ns, 95));
  const row = (s: Series) => {
    const p50 = p(s, 50);
    const p95 = p(s, 95);
    return `| ${s.label} | ${fmt(p50 / 1000, 3)} | ${fmt(p95 / 1000, 3)} | ${fmt(p50 / p(lookup, 50), 1)}× | ${fmt(p95 / p(lookup, 95), 1)}× |`;
  };
  const met = (s: Series) =>
    p(s, 50) / p(lookup, 50) <= TARGET && p(s, 95) / p(lookup, 95) <= TARGET ? 'met' : 'NOT met';
  const total = [...situations.values()].reduce((a, b) => a + b, 0);
  const mix = [...situations.entries()]
    .map(([s, k]) => `${s} ${Math.round((100 * k) / total)}%`)
    .join(', ');
  const md = [
    '## Routing: decision time against a plain lookup',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench routing\` (tests/bench/routing.ts), in one Node process (${process.version}), no server.`,
    '',
    `(a) The engine's \`decide\` (src/domain/routing/engine.ts) for the main line: 50 members (25 available, 10 on a call, 8 on do not disturb, 7 offline), 20 forwarding rules (4 each of no answer, busy, closed, holiday; targets people, a number, voicemail and three other groups, one of which forwards back to the main line: a loop the engine cuts), hours in Europe/London (Mon–Fri 08–18, Sat 09–13) and a year of holidays (60: every Sunday and 8 bank holidays). Calls arrive in time order, one every ${STEP} s through the week from Monday 23 November 2026 (${mix}). Against it, a plain lookup of the same group: the Map lookups of its group, schedule, calendar and rules that \`setupOf\` does, without deciding. Each sample times ${BATCH} consecutive calls (process.hrtime, per call); the kinds are interleaved, ${SAMPLES} samples each after ${WARMUP} warm-up samples.`,
    '',
    '| per call | p50 (µs) | p95 (µs) | ratio p50 | ratio p95 |',
    '| --- | --- | --- | --- | --- |',
    row(lookup),
    row(atOnce),
    row(inOrder),
    row(cold),
    row(plainRing),
    '',
    `By situation (each sample by its first call; the calls of a sample span ${BATCH * STEP} s), decide per call:`,
    '',
    '| situation | share of samples | all at once p50 / p95 (µs) | in order p50 / p95 (µs) |',
    '| --- | --- | --- | --- |',
    ...(['open', 'closed', 'holiday'] as const).map((sit) => {
      const a = bySituation(atOnce, sit);
      const o = bySituation(inOrder, sit);
      return `| ${sit} | ${Math.round((100 * a.length) / atOnce.ns.length)}% | ${fmt(median(a) / 1000, 2)} / ${fmt(percentile(a, 95) / 1000, 2)} | ${fmt(median(o) / 1000, 2)} / ${fmt(percentile(o, 95) / 1000, 2)} |`;
    }),
    '',
    `- **Target (at most ${TARGET}×)**: the server routes a call from routing's copy of the groups (server/routing/routing-data.ts: each group, its hours, holidays and rules read through Sync's REST API and kept in Maps for 10 s), so a call is the lookups above and a decision: decide all at once ${fmt(p(atOnce, 50) / p(lookup, 50), 1)}× the plain lookup at p50 and ${fmt(p(atOnce, 95) / p(lookup, 95), 1)}× at p95, in order ${fmt(p(inOrder, 50) / p(lookup, 50), 1)}× / ${fmt(p(inOrder, 95) / p(lookup, 95), 1)}× (${met(atOnce)} / ${met(inOrder)}). A decision reads 50 members' availability and builds a plan of every way the call can go; (b) below is the server's whole answer, Sync reads included.`,
    `- Against the plain ring (the lookup and each member's availability, what a router with no rules does): all at once ${fmt(p(atOnce, 50) / p(plainRing, 50), 1)}× at p50, ${fmt(p(atOnce, 95) / p(plainRing, 95), 1)}× at p95; in order ${fmt(p(inOrder, 50) / p(plainRing, 50), 1)}× / ${fmt(p(inOrder, 95) / p(plainRing, 95), 1)}×.`,
    `- Out of reach against the bare lookups for any router that looks at who can take a call: reading the 50 members' availability alone (the plain ring) is ${fmt(p(plainRing, 50) / p(lookup, 50), 1)}× them at p50. The p95 is the open situation (above): the plan of an open call is the largest (${planBytes} bytes as JSON: the ring of the ${readyCount} available members with its reason, then both ways on through Support, Overflow and Night desk to the loop cut), and building it is most of the time.`,
    "- Made faster for this bench (behaviour unchanged, the engine's tests as they were): `stateAt` read the wall clock through Intl's `formatToParts` for each group on the way, half of a decision; it now reads the zone's offset once per UTC hour and zone (`clockNow` in src/domain/hours.ts; the row with each call in another hour is a decision whose hours are not known yet, two reads per group). The engine's steps were functions made inside `decide`, which tsx (the server ran on it then; it runs from its esbuild bundle now) named with a `defineProperty` each per call, a fifth of a decision; they are now methods of one object per decision, and a group's situation is read once per decision. Together, the mean per call over this week of calls, all at once, went from about 28 µs to about 7 µs (measured on this fixture while making the change).",
    '',
    await webhookHalf(),
  ].join('\n');
  // Read, so that no measured call can be optimised away.
  if (!Number.isFinite(sink)) throw new Error('routing bench: bad checksum');
  writeSection('routing', md);
  return md;
}
