/**
 * The routing engine in tables: every situation (open, closed, holiday, no hours, no members) with
 * each kind of rule, each strategy, each availability, each target, announcements present or not,
 * loops, chains, a deleted group, rule order, and instants around daylight-saving changes in London
 * and New York. Whole plans are compared where they stay readable; the sentences a person reads in
 * Test this group are part of them.
 */
import { describe, expect, it } from 'vitest';
import { decide, transferTurns } from '../../../src/domain/routing/engine';
import type { GroupGuidance, GuidanceSlot, Strategy } from '../../../src/contracts/records/group';
import type { Rule, Target, When } from '../../../src/contracts/records/forwarding';
import type { Schedule } from '../../../src/contracts/records/schedule';
import type { Calendar } from '../../../src/contracts/records/calendar';
import {
  MAX_HOPS,
  pathOf,
  type Availability,
  type Decision,
  type GroupSetup,
  type Plan,
} from '../../../src/domain/routing/plan';

const NAMES: Record<string, string> = {
  ann: 'Ann',
  bob: 'Bob',
  cat: 'Cat',
  dan: 'Dan',
  tom: 'Tom',
};

const weekdays = (start: string, end: string): Schedule['week'] => ({
  mon: [{ start, end }],
  tue: [{ start, end }],
  wed: [{ start, end }],
  thu: [{ start, end }],
  fri: [{ start, end }],
});
const LONDON_9_TO_5: Schedule = { timeZone: 'Europe/London', week: weekdays('09:00', '17:00') };
const XMAS: Calendar = {
  holidays: [{ id: 'h1', label: 'Christmas', start: '2026-12-24', end: '2026-12-28' }],
};

const at = (iso: string) => Date.parse(iso);
/** Wednesday 10:00 in London (GMT). */
const OPEN = at('2026-11-25T10:00:00Z');
/** Wednesday 20:00 in London. */
const CLOSED = at('2026-11-25T20:00:00Z');
/** Friday 10:00, inside the Christmas holiday. */
const HOLIDAY = at('2026-12-25T10:00:00Z');
const SITUATIONS = { open: OPEN, closed: CLOSED, holiday: HOLIDAY } as const;

interface GroupSpec {
  name?: string;
  members?: string[];
  strategy?: Strategy;
  ringTimeout?: number;
  noAnswerTimeout?: number;
  guidance?: GroupGuidance;
  schedule?: Schedule | null;
  calendar?: Calendar | null;
  rules?: Rule[];
}

/** Groups by id (London 09–17 on weekdays, Christmas off, Ann and Bob ringing at once, unless said). */
function world(
  specs: Record<string, GroupSpec>,
  presence: Record<string, Availability> = {},
  externalCalls = true,
) {
  const setups = new Map<string, GroupSetup>(
    Object.entries(specs).map(([id, s]) => [
      id,
      {
        id,
        group: {
          name: s.name ?? id[0]!.toUpperCase() + id.slice(1),
          number: '200',
          members: s.members ?? ['ann', 'bob'],
          strategy: s.strategy ?? 'simultaneous',
          ringTimeout: s.ringTimeout ?? 20,
          ...(s.noAnswerTimeout === undefined ? {} : { noAnswerTimeout: s.noAnswerTimeout }),
          guidance: s.guidance ?? {},
        },
        schedule: s.schedule === undefined ? LONDON_9_TO_5 : s.schedule,
        calendar: s.calendar === undefined ? XMAS : s.calendar,
        rules: s.rules ?? [],
      },
    ]),
  );
  return (groupId: string, instant: number): Decision =>
    decide({
      groupId,
      at: instant,
      setupOf: (id) => setups.get(id) ?? null,
      availabilityOf: (identity) => presence[identity] ?? 'available',
      externalCalls,
      nameOf: (identity) => NAMES[identity] ?? identity,
    });
}

const rule = (when: When, target: Target, order = 1, after = 30): Rule => ({
  when,
  after,
  target,
  order,
});
const toVoicemail: Target = { kind: 'voicemail' };

// --- plan builders (groupId last, 'sales' unless said) ------------------------------------------

const vm = (reason: string, groupId = 'sales', guidanceId: string | null = null): Plan => ({
  kind: 'voicemail',
  groupId,
  guidanceId,
  reason,
});
const announce = (slot: GuidanceSlot, guidanceId: string, then: Plan, groupId = 'sales'): Plan => ({
  kind: 'announce',
  groupId,
  slot,
  guidanceId,
  then,
});
const ring = (
  identities: string[],
  seconds: number,
  reason: string,
  onNoAnswer: Plan,
  onBusy: Plan,
  groupId = 'sales',
): Plan => ({ kind: 'ring', groupId, identities, seconds, reason, onNoAnswer, onBusy });
const forward = (
  when: When,
  order: number,
  target: Target,
  reason: string,
  then: Plan,
  groupId = 'sales',
): Plan => ({ kind: 'forward', rule: { groupId, when, order }, target, reason, then });
/** Members ringing one after another: each turn's no answer and decline go to the next. */
const inOrder = (
  turns: { who: string; seconds: number; reason: string }[],
  onNoAnswer: Plan,
  onBusy: Plan,
  groupId = 'sales',
): Plan =>
  turns.reduceRight<Plan | null>(
    (next, t) => ring([t.who], t.seconds, t.reason, next ?? onNoAnswer, next ?? onBusy, groupId),
    null,
  )!;

const NOBODY = vm('Nobody answered.');
const DECLINED = vm('Everyone declined the call.');
const RING_ANN_BOB = ring(['ann', 'bob'], 20, 'Ringing Ann and Bob at once.', NOBODY, DECLINED);
const viaVoicemail = (when: When): Plan =>
  forward(
    when,
    1,
    toVoicemail,
    'Forwarded to voicemail.',
    vm('The forwarding rule sends the call to voicemail.'),
  );

describe('decide: situations and rules', () => {
  const noRule: Record<keyof typeof SITUATIONS, Plan> = {
    open: RING_ANN_BOB,
    closed: vm('Outside business hours.'),
    holiday: vm('Closed for Christmas.'),
  };
  const cases: [When | 'none', keyof typeof SITUATIONS, Plan][] = [
    ['none', 'open', noRule.open],
    ['none', 'closed', noRule.closed],
    ['none', 'holiday', noRule.holiday],
    // Always: forwards whatever the hours say, without ringing anyone.
    ['always', 'open', viaVoicemail('always')],
    ['always', 'closed', viaVoicemail('always')],
    ['always', 'holiday', viaVoicemail('always')],
    // No answer (a group stored without its own no-answer time: the rule's 30 s stands in, longer
    // than the ring time, so everyone rings for it): applies to both ways a ring ends.
    [
      'noAnswer',
      'open',
      ring(
        ['ann', 'bob'],
        30,
        'Ringing Ann and Bob at once.',
        viaVoicemail('noAnswer'),
        viaVoicemail('noAnswer'),
      ),
    ],
    ['noAnswer', 'closed', noRule.closed],
    ['noAnswer', 'holiday', noRule.holiday],
    // Busy: only when everyone declines.
    [
      'busy',
      'open',
      ring(['ann', 'bob'], 20, 'Ringing Ann and Bob at once.', NOBODY, viaVoicemail('busy')),
    ],
    ['busy', 'closed', noRule.closed],
    ['busy', 'holiday', noRule.holiday],
    // Closed: also on a holiday, which has no rule of its own here.
    ['closed', 'open', noRule.open],
    ['closed', 'closed', viaVoicemail('closed')],
    ['closed', 'holiday', viaVoicemail('closed')],
    // Holiday: only on a holiday.
    ['holiday', 'open', noRule.open],
    ['holiday', 'closed', noRule.closed],
    ['holiday', 'holiday', viaVoicemail('holiday')],
  ];
  it.each(cases)('a %s rule when %s', (when, situation, plan) => {
    const call = world({ sales: { rules: when === 'none' ? [] : [rule(when, toVoicemail)] } });
    const d = call('sales', SITUATIONS[situation]);
    expect(d).toEqual({
      groupId: 'sales',
      situation,
      holiday: situation === 'holiday' ? 'Christmas' : null,
      plan,
      cuts: [],
    });
  });

  const precedence: [string, keyof typeof SITUATIONS, Rule[], When][] = [
    ['holiday before closed and always', 'holiday', ['always', 'closed', 'holiday'], 'holiday'],
    ['closed before always, on a holiday', 'holiday', ['always', 'closed'], 'closed'],
    ['always when nothing else, on a holiday', 'holiday', ['noAnswer', 'busy', 'always'], 'always'],
    ['closed before always', 'closed', ['always', 'holiday', 'closed'], 'closed'],
    ['always when closed with no closed rule', 'closed', ['holiday', 'always'], 'always'],
    ['always before ringing, when open', 'open', ['noAnswer', 'busy', 'always'], 'always'],
  ].map(([name, situation, whens, applied]) => [
    name as string,
    situation as keyof typeof SITUATIONS,
    (whens as When[]).map((w, i) => rule(w, { kind: 'voicemail' }, i)),
    applied as When,
  ]);
  it.each(precedence)('precedence: %s', (_name, situation, rules, applied) => {
    const d = world({ sales: { rules } })('sales', SITUATIONS[situation]);
    const first = pathOf(d.plan)[0]!;
    expect(first.kind).toBe('forward');
    if (first.kind === 'forward') expect(first.rule.when).toBe(applied);
  });

  it('a group with no hours is closed at any time, and on a holiday of its calendar (UTC dates)', () => {
    const call = world({ sales: { schedule: null } });
    expect(call('sales', OPEN)).toMatchObject({ situation: 'closed', plan: noRule.closed });
    expect(call('sales', HOLIDAY)).toMatchObject({
      situation: 'holiday',
      holiday: 'Christmas',
      plan: noRule.holiday,
    });
    // Christmas Eve starts at midnight UTC for a group with no zone.
    expect(call('sales', at('2026-12-23T23:59:59Z')).situation).toBe('closed');
    expect(call('sales', at('2026-12-24T00:00:00Z')).situation).toBe('holiday');
  });

  it('a group with no members goes to the busy rule, else no answer, else voicemail', () => {
    const empty = { members: [] };
    expect(world({ sales: empty })('sales', OPEN).plan).toEqual(vm('The group has no members.'));
    expect(
      world({ sales: { ...empty, rules: [rule('noAnswer', toVoicemail)] } })('sales', OPEN).plan,
    ).toEqual(viaVoicemail('noAnswer'));
    expect(
      world({
        sales: { ...empty, rules: [rule('noAnswer', toVoicemail, 0), rule('busy', toVoicemail)] },
      })('sales', OPEN).plan,
    ).toEqual(viaVoicemail('busy'));
  });

  it('an unknown group goes to a voicemail with the built-in greeting, and the cut is logged', () => {
    expect(world({})('nope', OPEN)).toEqual({
      groupId: 'nope',
      situation: 'closed',
      holiday: null,
      plan: vm('No such group.', 'nope'),
      cuts: ['nope is not a ring group'],
    });
  });
});

describe('decide: strategies and who can take a call', () => {
  const four = ['ann', 'bob', 'cat', 'dan'];
  const skippedAll: Record<string, Availability> = {
    bob: 'onCall',
    cat: 'doNotDisturb',
    dan: 'offline',
  };
  const cases: [string, Strategy, Record<string, Availability>, Plan][] = [
    [
      'everyone available',
      'simultaneous',
      {},
      ring(four, 20, 'Ringing Ann, Bob, Cat and Dan at once.', NOBODY, DECLINED),
    ],
    [
      'one available, the others on a call, on do not disturb or offline',
      'simultaneous',
      skippedAll,
      ring(
        ['ann'],
        20,
        'Ringing Ann at once. Skipped: Bob (on a call), Cat (do not disturb), Dan (offline).',
        NOBODY,
        DECLINED,
      ),
    ],
    [
      'everyone available',
      'sequential',
      {},
      inOrder(
        [
          { who: 'ann', seconds: 20, reason: 'Ringing Ann (1 of 4 in order).' },
          { who: 'bob', seconds: 20, reason: 'Ringing Bob (2 of 4 in order).' },
          { who: 'cat', seconds: 20, reason: 'Ringing Cat (3 of 4 in order).' },
          { who: 'dan', seconds: 20, reason: 'Ringing Dan (4 of 4 in order).' },
        ],
        NOBODY,
        DECLINED,
      ),
    ],
    [
      'Bob on a call: skipped, the order kept',
      'sequential',
      { bob: 'onCall' },
      inOrder(
        [
          {
            who: 'ann',
            seconds: 20,
            reason: 'Ringing Ann (1 of 3 in order). Skipped: Bob (on a call).',
          },
          { who: 'cat', seconds: 20, reason: 'Ringing Cat (2 of 3 in order).' },
          { who: 'dan', seconds: 20, reason: 'Ringing Dan (3 of 3 in order).' },
        ],
        NOBODY,
        DECLINED,
      ),
    ],
    ...(['simultaneous', 'sequential'] as const).map(
      (strategy): [string, Strategy, Record<string, Availability>, Plan] => [
        'nobody can take the call',
        strategy,
        { ...skippedAll, ann: 'offline' },
        vm(
          'Nobody can take the call: Ann (offline), Bob (on a call), Cat (do not disturb), Dan (offline).',
        ),
      ],
    ),
  ];
  it.each(cases)('%s (%s)', (_name, strategy, presence, plan) => {
    const d = world({ sales: { members: four, strategy } }, presence)('sales', OPEN);
    expect(d.plan).toEqual(plan);
  });

  const one: [Availability, Plan][] = [
    ['available', ring(['ann'], 20, 'Ringing Ann at once.', NOBODY, DECLINED)],
    ['onCall', vm('Nobody can take the call: Ann (on a call).')],
    ['doNotDisturb', vm('Nobody can take the call: Ann (do not disturb).')],
    ['offline', vm('Nobody can take the call: Ann (offline).')],
  ];
  it.each(one)('a one-member group whose member is %s', (availability, plan) => {
    const d = world({ sales: { members: ['ann'] } }, { ann: availability })('sales', OPEN);
    expect(d.plan).toEqual(plan);
  });

  it('nobody available: the busy rule, else the no-answer rule, else voicemail', () => {
    const away = { ann: 'offline', bob: 'onCall' } as const;
    const busy = rule('busy', toVoicemail, 2);
    const noAnswer = rule('noAnswer', toVoicemail, 1);
    expect(world({ sales: { rules: [noAnswer, busy] } }, away)('sales', OPEN).plan).toEqual(
      forward(
        'busy',
        2,
        toVoicemail,
        'Forwarded to voicemail.',
        vm('The forwarding rule sends the call to voicemail.'),
      ),
    );
    expect(world({ sales: { rules: [noAnswer] } }, away)('sales', OPEN).plan).toEqual(
      viaVoicemail('noAnswer'),
    );
  });

  it('names people by identity when no names are given', () => {
    const d = decide({
      groupId: 'sales',
      at: OPEN,
      setupOf: (id) =>
        id === 'sales'
          ? {
              id,
              group: {
                name: 'Sales',
                number: '200',
                members: ['ann@x.io', 'bob@x.io'],
                strategy: 'simultaneous',
                ringTimeout: 20,
                guidance: {},
              },
              schedule: LONDON_9_TO_5,
              calendar: null,
              rules: [],
            }
          : null,
      availabilityOf: (identity) => (identity === 'bob@x.io' ? 'onCall' : 'available'),
      externalCalls: false,
    });
    expect(d.plan).toMatchObject({
      kind: 'ring',
      reason: 'Ringing ann@x.io at once. Skipped: bob@x.io (on a call).',
    });
  });
});

/**
 * The ring time is per member, the no-answer time separate (FreePBX's ring time and "destination if
 * no answer"): the no-answer rule applies after the no-answer time and never before every member
 * has rung; the last turn rings on for what is left. A group stored before it had a no-answer time
 * uses its no-answer rule's delay (the one clock both used to share).
 */
describe('decide: ring time per member, and the no-answer time', () => {
  const cases: [Strategy, number, number, 'group' | 'rule', [string, number][]][] = [
    ['simultaneous', 20, 10, 'group', [['ann,bob,cat', 20]]],
    ['simultaneous', 20, 20, 'group', [['ann,bob,cat', 20]]],
    ['simultaneous', 20, 45, 'group', [['ann,bob,cat', 45]]],
    ['simultaneous', 20, 45, 'rule', [['ann,bob,cat', 45]]],
    // The case: 20 s each, no answer after 20 s; every member still rings in turn.
    ...(['group', 'rule'] as const).map(
      (from): [Strategy, number, number, 'group' | 'rule', [string, number][]] => [
        'sequential',
        20,
        20,
        from,
        [
          ['ann', 20],
          ['bob', 20],
          ['cat', 20],
        ],
      ],
    ),
    [
      'sequential',
      20,
      15,
      'group',
      [
        ['ann', 20],
        ['bob', 20],
        ['cat', 20],
      ],
    ],
    [
      'sequential',
      20,
      70,
      'group',
      [
        ['ann', 20],
        ['bob', 20],
        ['cat', 30],
      ],
    ],
    [
      'sequential',
      7,
      300,
      'rule',
      [
        ['ann', 7],
        ['bob', 7],
        ['cat', 286],
      ],
    ],
  ];
  it.each(cases)(
    '%s, ring time %i s, no answer after %i s (set on the %s)',
    (strategy, timeout, noAnswer, from, turns) => {
      const d = world({
        sales: {
          members: ['ann', 'bob', 'cat'],
          strategy,
          ringTimeout: timeout,
          ...(from === 'group' ? { noAnswerTimeout: noAnswer } : {}),
          // On the group, the rule's own delay (5 s) is no longer read.
          rules: [
            rule('noAnswer', { kind: 'user', identity: 'tom' }, 1, from === 'rule' ? noAnswer : 5),
          ],
        },
      })('sales', OPEN);
      for (const outcome of ['noAnswer', 'busy'] as const) {
        const steps = pathOf(d.plan, outcome);
        const rings = steps.filter((p) => p.kind === 'ring' && p.groupId === 'sales');
        // Declining moves on to the next in order too; then Tom rings for the ring time.
        expect(
          rings.map((p) => (p.kind === 'ring' ? [p.identities.join(','), p.seconds] : null)),
        ).toEqual([...turns, ['tom', timeout]]);
        const fwd = steps.find((p) => p.kind === 'forward');
        expect(fwd).toMatchObject({ rule: { when: 'noAnswer' }, reason: 'Forwarded to Tom.' });
      }
    },
  );

  it('in order with no no-answer time at all (stored before it, no rule): each member one turn', () => {
    const d = world({ sales: { members: ['ann', 'bob', 'cat'], strategy: 'sequential' } })(
      'sales',
      OPEN,
    );
    expect(
      pathOf(d.plan).map((p) => (p.kind === 'ring' ? [p.identities[0], p.seconds] : p.kind)),
    ).toEqual([['ann', 20], ['bob', 20], ['cat', 20], 'voicemail']);
  });

  it('people away or on do-not-disturb are skipped and named, in order and all at once', () => {
    const presence = { bob: 'away', cat: 'doNotDisturb' } as const;
    for (const strategy of ['simultaneous', 'sequential'] as const) {
      const d = world(
        { sales: { members: ['ann', 'bob', 'cat', 'dan'], strategy, noAnswerTimeout: 30 } },
        presence,
      )('sales', OPEN);
      const rings = pathOf(d.plan).filter((p) => p.kind === 'ring');
      expect(rings.flatMap((p) => (p.kind === 'ring' ? p.identities : []))).toEqual(['ann', 'dan']);
      expect(rings[0]).toMatchObject({
        reason: expect.stringContaining('Skipped: Bob (away), Cat (do not disturb).') as unknown,
      });
    }
  });
});

describe('decide: forwarding targets', () => {
  const tom = (availability: Availability) => ({ tom: availability });
  const cases: [string, Target, Record<string, Availability>, boolean, Plan][] = [
    [
      'a person who is available',
      { kind: 'user', identity: 'tom' },
      tom('available'),
      false,
      forward(
        'always',
        1,
        { kind: 'user', identity: 'tom' },
        'Forwarded to Tom.',
        ring(['tom'], 20, 'Ringing Tom.', vm('Tom did not answer.'), vm('Tom declined the call.')),
      ),
    ],
    ...(
      [
        ['onCall', 'on a call'],
        ['doNotDisturb', 'do not disturb'],
        ['offline', 'offline'],
      ] as const
    ).map(([a, words]): [string, Target, Record<string, Availability>, boolean, Plan] => [
      `a person who is ${a}`,
      { kind: 'user', identity: 'tom' },
      tom(a),
      false,
      forward(
        'always',
        1,
        { kind: 'user', identity: 'tom' },
        'Forwarded to Tom.',
        vm(`Tom cannot take the call (${words}).`),
      ),
    ]),
    [
      'a number, with a phone provider',
      { kind: 'number', number: '+442079460000' },
      {},
      true,
      forward(
        'always',
        1,
        { kind: 'number', number: '+442079460000' },
        'Forwarded to +442079460000.',
        {
          kind: 'dial',
          groupId: 'sales',
          number: '+442079460000',
          seconds: 20,
          onNoAnswer: vm('+442079460000 did not answer.'),
        },
      ),
    ],
    [
      'a number, without a phone provider',
      { kind: 'number', number: '+442079460000' },
      {},
      false,
      forward(
        'always',
        1,
        { kind: 'number', number: '+442079460000' },
        'Forwarded to +442079460000.',
        vm('Forwarding to +442079460000 needs a phone provider, and none is configured.'),
      ),
    ],
    ['voicemail', toVoicemail, {}, false, viaVoicemail('always')],
    [
      'another group, decided as its own',
      { kind: 'group', groupId: 'support' },
      {},
      false,
      forward(
        'always',
        1,
        { kind: 'group', groupId: 'support' },
        'Forwarded to the group Support.',
        ring(
          ['cat'],
          20,
          'Ringing Cat at once.',
          vm('Nobody answered.', 'support'),
          vm('Everyone declined the call.', 'support'),
          'support',
        ),
      ),
    ],
  ];
  it.each(cases)('to %s', (_name, target, presence, externalCalls, plan) => {
    const call = world(
      { sales: { rules: [rule('always', target)] }, support: { members: ['cat'] } },
      presence,
      externalCalls,
    );
    const d = call('sales', OPEN);
    expect(d.plan).toEqual(plan);
    expect(d.cuts).toEqual([]);
  });

  it('rings a person forwarded to for the forwarding group’s ring timeout, and dials for it', () => {
    const call = world({
      sales: {
        ringTimeout: 45,
        rules: [
          rule('closed', { kind: 'user', identity: 'tom' }),
          rule('holiday', { kind: 'number', number: '+15551234567' }),
        ],
      },
    });
    expect(pathOf(call('sales', CLOSED).plan)[1]).toMatchObject({ kind: 'ring', seconds: 45 });
    expect(pathOf(call('sales', HOLIDAY).plan)[1]).toMatchObject({ kind: 'dial', seconds: 45 });
  });

  it('a forwarded group uses its own hours, announcements and voicemail greeting', () => {
    const call = world({
      sales: { rules: [rule('closed', { kind: 'group', groupId: 'night' })] },
      night: {
        // New York, 09–17: 20:00 in London is 15:00 there.
        schedule: { timeZone: 'America/New_York', week: weekdays('09:00', '17:00') },
        members: ['tom'],
        strategy: 'sequential',
        ringTimeout: 15,
        guidance: { open: 'ny-hello', voicemail: 'ny-vm' },
      },
    });
    expect(call('sales', CLOSED).plan).toEqual(
      forward(
        'closed',
        1,
        { kind: 'group', groupId: 'night' },
        'Forwarded to the group Night.',
        announce(
          'open',
          'ny-hello',
          ring(
            ['tom'],
            15,
            'Ringing Tom (1 of 1 in order).',
            vm('Nobody answered.', 'night', 'ny-vm'),
            vm('Everyone declined the call.', 'night', 'ny-vm'),
            'night',
          ),
          'night',
        ),
      ),
    );
    // 23:00 in London is 18:00 in New York: closed there too.
    expect(pathOf(call('sales', at('2026-11-25T23:00:00Z')).plan).at(-1)).toEqual(
      vm('Outside business hours.', 'night', 'ny-vm'),
    );
  });

  it('the first rule by order applies, whatever order the list is in; on equal order, the first listed', () => {
    const byNumber = rule('closed', { kind: 'number', number: '+442079460000' }, 1);
    const byTom = rule('closed', { kind: 'user', identity: 'tom' }, 2);
    const byVm = rule('closed', toVoicemail, 2);
    for (const rules of [
      [byNumber, byTom],
      [byTom, byNumber],
      [byVm, byTom, byNumber],
    ]) {
      const first = world({ sales: { rules } })('sales', CLOSED).plan;
      expect(first).toMatchObject({ kind: 'forward', rule: { order: 1 }, target: byNumber.target });
    }
    expect(world({ sales: { rules: [byVm, byTom] } })('sales', CLOSED).plan).toMatchObject({
      target: toVoicemail,
    });
    expect(world({ sales: { rules: [byTom, byVm] } })('sales', CLOSED).plan).toMatchObject({
      target: byTom.target,
    });
  });
});

describe('decide: announcements', () => {
  const all: GroupGuidance = {
    open: 'g-open',
    closed: 'g-closed',
    holiday: 'g-holiday',
    hold: 'g-hold',
    voicemail: 'g-vm',
  };
  const noHoliday: GroupGuidance = { open: 'g-open', closed: 'g-closed' };
  const cases: [string, GroupGuidance, keyof typeof SITUATIONS, Plan][] = [
    [
      'every slot',
      all,
      'open',
      announce(
        'open',
        'g-open',
        ring(
          ['ann', 'bob'],
          20,
          'Ringing Ann and Bob at once.',
          vm('Nobody answered.', 'sales', 'g-vm'),
          vm('Everyone declined the call.', 'sales', 'g-vm'),
        ),
      ),
    ],
    [
      'every slot',
      all,
      'closed',
      announce('closed', 'g-closed', vm('Outside business hours.', 'sales', 'g-vm')),
    ],
    [
      'every slot',
      all,
      'holiday',
      announce('holiday', 'g-holiday', vm('Closed for Christmas.', 'sales', 'g-vm')),
    ],
    [
      'no holiday announcement (the closed one plays)',
      noHoliday,
      'holiday',
      announce('closed', 'g-closed', vm('Closed for Christmas.')),
    ],
    [
      'a holiday announcement only',
      { holiday: 'g-holiday' },
      'closed',
      vm('Outside business hours.'),
    ],
    ['a holiday announcement only', { holiday: 'g-holiday' }, 'open', RING_ANN_BOB],
    ['hold only (not played by routing)', { hold: 'g-hold' }, 'open', RING_ANN_BOB],
    [
      'hold only (not played by routing)',
      { hold: 'g-hold' },
      'closed',
      vm('Outside business hours.'),
    ],
    ['none', {}, 'holiday', vm('Closed for Christmas.')],
    [
      'a voicemail greeting only',
      { voicemail: 'g-vm' },
      'closed',
      vm('Outside business hours.', 'sales', 'g-vm'),
    ],
  ];
  it.each(cases)('%s, %s', (_name, guidance, situation, plan) => {
    expect(world({ sales: { guidance } })('sales', SITUATIONS[situation]).plan).toEqual(plan);
  });

  it('plays the announcement before an always rule forwards, in every situation', () => {
    const call = world({ sales: { guidance: all, rules: [rule('always', toVoicemail)] } });
    expect(call('sales', OPEN).plan).toMatchObject({ kind: 'announce', slot: 'open' });
    expect(call('sales', CLOSED).plan).toMatchObject({ kind: 'announce', slot: 'closed' });
    expect(call('sales', HOLIDAY).plan).toMatchObject({ kind: 'announce', slot: 'holiday' });
    expect(pathOf(call('sales', OPEN).plan).map((p) => p.kind)).toEqual([
      'announce',
      'forward',
      'voicemail',
    ]);
  });
});

describe('decide: loops, long chains and deleted groups', () => {
  const to = (groupId: string, when: When = 'always', order = 1) =>
    rule(when, { kind: 'group', groupId }, order);

  it('A → B → A is cut at B, to the voicemail of the group whose rule would loop, and logged', () => {
    const call = world({
      a: { name: 'Alpha', rules: [to('b', 'closed')], guidance: { voicemail: 'a-vm' } },
      b: { name: 'Beta', rules: [to('a', 'closed')], guidance: { voicemail: 'b-vm' } },
    });
    const d = call('a', CLOSED);
    expect(d.plan).toEqual(
      forward(
        'closed',
        1,
        { kind: 'group', groupId: 'b' },
        'Forwarded to the group Beta.',
        forward(
          'closed',
          1,
          { kind: 'group', groupId: 'a' },
          'Forwarded to the group Alpha.',
          vm('Forwarding to Alpha would loop (Alpha → Beta → Alpha); it was cut.', 'b', 'b-vm'),
          'b',
        ),
        'a',
      ),
    );
    expect(d.cuts).toEqual(['forwarding loop cut: Alpha → Beta → Alpha']);
  });

  it('a group forwarding to itself is cut at once', () => {
    const d = world({ a: { name: 'Alpha', rules: [to('a')] } })('a', OPEN);
    expect(pathOf(d.plan).at(-1)).toEqual(
      vm('Forwarding to Alpha would loop (Alpha → Alpha); it was cut.', 'a'),
    );
    expect(d.cuts).toEqual(['forwarding loop cut: Alpha → Alpha']);
  });

  it('a loop on the no-answer branch leaves the ring and the other branch alone', () => {
    const call = world({
      a: { rules: [to('b', 'noAnswer')] },
      b: { members: ['cat'], rules: [to('a', 'noAnswer'), rule('busy', toVoicemail)] },
    });
    const d = call('a', OPEN);
    const noAnswer = pathOf(d.plan, 'noAnswer');
    expect(noAnswer.map((p) => p.kind)).toEqual([
      'ring',
      'forward',
      'ring',
      'forward',
      'voicemail',
    ]);
    expect(noAnswer.at(-1)).toMatchObject({ groupId: 'b', reason: /would loop \(A → B → A\)/ });
    // Declined at B: B's busy rule, no loop.
    expect(pathOf((pathOf(d.plan, 'noAnswer')[1] as { then: Plan }).then, 'busy').at(-1)).toEqual(
      vm('The forwarding rule sends the call to voicemail.', 'b'),
    );
    expect(new Set(d.cuts)).toEqual(new Set(['forwarding loop cut: A → B → A']));
  });

  it(`a chain through ${MAX_HOPS} groups is followed; one more group is cut at the last`, () => {
    const ids = ['g1', 'g2', 'g3', 'g4', 'g5'];
    const specs = Object.fromEntries(
      ids.map((id, i) => [
        id,
        { name: id.toUpperCase(), members: [`m${i + 1}`], rules: i < 4 ? [to(ids[i + 1]!)] : [] },
      ]),
    );
    const full = world(specs)('g1', OPEN);
    const steps = pathOf(full.plan);
    expect(steps.filter((p) => p.kind === 'forward').map((p) => p.rule.groupId)).toEqual([
      'g1',
      'g2',
      'g3',
      'g4',
    ]);
    expect(steps.at(-1)).toEqual(
      vm('Forwarding to G5 would pass through more than 4 groups; it was cut.', 'g4'),
    );
    expect(full.cuts).toEqual(['forwarding chain too long, cut: G1 → G2 → G3 → G4 → G5']);
    // Dialling g2, the same chain fits: G5's member rings.
    const shorter = world(specs)('g2', OPEN);
    expect(pathOf(shorter.plan).find((p) => p.kind === 'ring')).toMatchObject({
      groupId: 'g5',
      identities: ['m5'],
    });
    expect(shorter.cuts).toEqual([]);
  });

  it('a rule pointing at a deleted group goes to voicemail, and the cut is logged', () => {
    const d = world({ a: { rules: [to('gone', 'closed')] } })('a', CLOSED);
    expect(d.plan).toEqual(
      forward(
        'closed',
        1,
        { kind: 'group', groupId: 'gone' },
        'Forwarded to the group gone.',
        vm('The group gone no longer exists.', 'a'),
        'a',
      ),
    );
    expect(d.cuts).toEqual(['forwarding to a group that no longer exists: gone']);
  });
});

/**
 * Daylight-saving changes in 2026. London: 29 March 01:00 UTC (01:00 GMT → 02:00 BST), 25 October
 * 01:00 UTC (02:00 BST → 01:00 GMT). New York: 8 March 07:00 UTC (02:00 EST → 03:00 EDT), 1 November
 * 06:00 UTC (02:00 EDT → 01:00 EST). All four are Sundays.
 */
describe('decide: instants around daylight-saving changes', () => {
  const nightly = (timeZone: string): Schedule => ({
    timeZone,
    week: { sun: [{ start: '01:00', end: '03:00' }] },
  });
  const office = (timeZone: string): Schedule => ({ timeZone, week: weekdays('09:00', '17:00') });
  type Row = [string, Schedule, string, 'open' | 'closed'];
  const cases: Row[] = [
    // London spring forward: 01:00–02:00 never happens, so 01:00–03:00 is open one real hour.
    ['00:59:59 GMT', nightly('Europe/London'), '2026-03-29T00:59:59Z', 'closed'],
    [
      '02:00 BST (the clock jumps past 01:00)',
      nightly('Europe/London'),
      '2026-03-29T01:00:00Z',
      'open',
    ],
    ['02:59:59 BST', nightly('Europe/London'), '2026-03-29T01:59:59Z', 'open'],
    ['03:00 BST', nightly('Europe/London'), '2026-03-29T02:00:00Z', 'closed'],
    ['Friday 16:59 GMT', office('Europe/London'), '2026-03-27T16:59:00Z', 'open'],
    ['Friday 17:00 GMT', office('Europe/London'), '2026-03-27T17:00:00Z', 'closed'],
    ['Monday 08:59 BST', office('Europe/London'), '2026-03-30T07:59:00Z', 'closed'],
    ['Monday 09:00 BST (08:00 UTC)', office('Europe/London'), '2026-03-30T08:00:00Z', 'open'],
    // London fall back: 01:00–02:00 happens twice, so 01:00–03:00 is open three real hours.
    ['00:59 BST', nightly('Europe/London'), '2026-10-24T23:59:00Z', 'closed'],
    ['01:00 BST', nightly('Europe/London'), '2026-10-25T00:00:00Z', 'open'],
    ['01:59:59 BST', nightly('Europe/London'), '2026-10-25T00:59:59Z', 'open'],
    ['01:00 GMT (again)', nightly('Europe/London'), '2026-10-25T01:00:00Z', 'open'],
    ['02:59:59 GMT', nightly('Europe/London'), '2026-10-25T02:59:59Z', 'open'],
    ['03:00 GMT', nightly('Europe/London'), '2026-10-25T03:00:00Z', 'closed'],
    ['Friday 16:59 BST', office('Europe/London'), '2026-10-23T15:59:00Z', 'open'],
    ['Friday 17:00 BST', office('Europe/London'), '2026-10-23T16:00:00Z', 'closed'],
    ['Monday 08:59 GMT', office('Europe/London'), '2026-10-26T08:59:00Z', 'closed'],
    ['Monday 09:00 GMT', office('Europe/London'), '2026-10-26T09:00:00Z', 'open'],
    // New York spring forward: 02:00–03:00 never happens; 01:00–03:00 ends at the jump.
    ['00:59 EST', nightly('America/New_York'), '2026-03-08T05:59:00Z', 'closed'],
    ['01:00 EST', nightly('America/New_York'), '2026-03-08T06:00:00Z', 'open'],
    ['01:59:59 EST', nightly('America/New_York'), '2026-03-08T06:59:59Z', 'open'],
    ['03:00 EDT', nightly('America/New_York'), '2026-03-08T07:00:00Z', 'closed'],
    ['Friday 16:59 EST', office('America/New_York'), '2026-03-06T21:59:00Z', 'open'],
    ['Friday 17:00 EST', office('America/New_York'), '2026-03-06T22:00:00Z', 'closed'],
    ['Monday 08:59 EDT', office('America/New_York'), '2026-03-09T12:59:00Z', 'closed'],
    ['Monday 09:00 EDT (13:00 UTC)', office('America/New_York'), '2026-03-09T13:00:00Z', 'open'],
    // New York fall back: 01:00–02:00 happens twice; 01:00–03:00 is open three real hours.
    ['00:59 EDT', nightly('America/New_York'), '2026-11-01T04:59:00Z', 'closed'],
    ['01:00 EDT', nightly('America/New_York'), '2026-11-01T05:00:00Z', 'open'],
    ['01:00 EST (again)', nightly('America/New_York'), '2026-11-01T06:00:00Z', 'open'],
    ['02:59:59 EST', nightly('America/New_York'), '2026-11-01T07:59:59Z', 'open'],
    ['03:00 EST', nightly('America/New_York'), '2026-11-01T08:00:00Z', 'closed'],
    ['Friday 16:59 EDT', office('America/New_York'), '2026-10-30T20:59:00Z', 'open'],
    ['Friday 17:00 EDT', office('America/New_York'), '2026-10-30T21:00:00Z', 'closed'],
    ['Monday 08:59 EST', office('America/New_York'), '2026-11-02T13:59:00Z', 'closed'],
    ['Monday 09:00 EST (14:00 UTC)', office('America/New_York'), '2026-11-02T14:00:00Z', 'open'],
  ];
  it.each(cases)('%s (%s hours, at %s): %s', (_local, schedule, instant, situation) => {
    const d = world({
      sales: { schedule, calendar: null, guidance: { open: 'hi', closed: 'bye' } },
    })('sales', at(instant));
    expect(d.situation).toBe(situation);
    expect(pathOf(d.plan).map((p) => p.kind)).toEqual(
      situation === 'open' ? ['announce', 'ring', 'voicemail'] : ['announce', 'voicemail'],
    );
    expect(d.plan).toMatchObject({ slot: situation });
  });

  const holidays: [string, string, string, 'holiday' | 'closed'][] = [
    // Holidays are local dates: the day of the change is a day like any other.
    ['Europe/London', '2026-03-29', '2026-03-28T23:59:59Z', 'closed'],
    ['Europe/London', '2026-03-29', '2026-03-29T00:00:00Z', 'holiday'],
    ['Europe/London', '2026-03-29', '2026-03-29T22:59:59Z', 'holiday'],
    ['Europe/London', '2026-03-29', '2026-03-29T23:00:00Z', 'closed'],
    ['Europe/London', '2026-10-25', '2026-10-24T22:59:59Z', 'closed'],
    ['Europe/London', '2026-10-25', '2026-10-24T23:00:00Z', 'holiday'],
    ['Europe/London', '2026-10-25', '2026-10-25T23:59:59Z', 'holiday'],
    ['Europe/London', '2026-10-25', '2026-10-26T00:00:00Z', 'closed'],
    ['America/New_York', '2026-11-01', '2026-11-01T03:59:59Z', 'closed'],
    ['America/New_York', '2026-11-01', '2026-11-01T04:00:00Z', 'holiday'],
    ['America/New_York', '2026-11-01', '2026-11-02T04:59:59Z', 'holiday'],
    ['America/New_York', '2026-11-01', '2026-11-02T05:00:00Z', 'closed'],
  ];
  it.each(holidays)('%s, holiday on %s, at %s: %s', (timeZone, date, instant, situation) => {
    const d = world({
      sales: {
        schedule: { timeZone, week: {} },
        calendar: { holidays: [{ id: 'h', label: 'Clock day', start: date, end: date }] },
        guidance: { closed: 'bye' },
      },
    })('sales', at(instant));
    expect(d.situation).toBe(situation);
    expect(d.holiday).toBe(situation === 'holiday' ? 'Clock day' : null);
    // No holiday announcement: the closed one plays either way.
    expect(d.plan).toEqual(
      announce(
        'closed',
        'bye',
        vm(situation === 'holiday' ? 'Closed for Clock day.' : 'Outside business hours.'),
      ),
    );
  });
});

/**
 * Stored data is read tolerantly (`groupRecord.read`, `ruleFromData`), and the Sync service does not
 * check it: another client can store a ring timeout or a no-answer delay the forms would refuse.
 */
describe('decide: durations the forms would refuse', () => {
  it('a no-answer time of 0 s or less: every member still rings for the ring time, never a missing plan', () => {
    for (const after of [0, -5]) {
      for (const from of ['rule', 'group'] as const) {
        const d = world({
          sales: {
            strategy: 'sequential',
            ...(from === 'group' ? { noAnswerTimeout: after } : {}),
            rules: [rule('noAnswer', toVoicemail, 1, after)],
          },
        })('sales', OPEN);
        expect(
          pathOf(d.plan).map((p) => (p.kind === 'ring' ? [p.identities[0], p.seconds] : p.kind)),
        ).toEqual([['ann', 20], ['bob', 20], 'forward', 'voicemail']);
      }
    }
  });

  it('a no-answer delay of 0 s, all at once: the ring time; a ring time of 0 s or less: 1 s', () => {
    const atOnce = world({ sales: { rules: [rule('noAnswer', toVoicemail, 1, 0)] } })(
      'sales',
      OPEN,
    );
    expect(atOnce.plan).toMatchObject({ kind: 'ring', seconds: 20 });
    for (const ringTimeout of [0, -20]) {
      const call = world({
        sales: {
          ringTimeout,
          strategy: 'sequential',
          rules: [rule('closed', { kind: 'user', identity: 'tom' })],
        },
      });
      expect(
        pathOf(call('sales', OPEN).plan).map((p) => (p.kind === 'ring' ? p.seconds : p.kind)),
      ).toEqual([1, 1, 'voicemail']);
      expect(pathOf(call('sales', CLOSED).plan)[1]).toMatchObject({ kind: 'ring', seconds: 1 });
    }
  });
});

describe('decide: cuts', () => {
  it('a cut reached by both ways a ring ends is logged once, and both ways share the plan', () => {
    const d = world({
      a: { rules: [rule('noAnswer', { kind: 'group', groupId: 'b' })] },
      b: { rules: [rule('always', { kind: 'group', groupId: 'a' })] },
    })('a', OPEN);
    expect(d.cuts).toEqual(['forwarding loop cut: A → B → A']);
    expect(d.plan).toMatchObject({ kind: 'ring' });
    if (d.plan.kind === 'ring') expect(d.plan.onBusy).toBe(d.plan.onNoAnswer);
  });

  it('the same cut through two rules is logged once', () => {
    const d = world(
      {
        a: {
          rules: [
            rule('noAnswer', { kind: 'group', groupId: 'b' }, 1),
            rule('busy', { kind: 'group', groupId: 'b' }, 2),
          ],
        },
        b: { rules: [rule('always', { kind: 'group', groupId: 'a' })] },
      },
      {},
    )('a', OPEN);
    expect(d.cuts).toEqual(['forwarding loop cut: A → B → A']);
  });
});

describe('transferTurns: a colleague transferring a call to a group', () => {
  const setup = (spec: Partial<GroupSetup['group']>): GroupSetup => ({
    id: 'sales',
    group: {
      name: 'Sales',
      number: '200',
      members: ['ann', 'bob', 'cat'],
      strategy: 'simultaneous',
      ringTimeout: 15,
      guidance: {},
      ...spec,
    },
    schedule: null,
    calendar: null,
    rules: [],
  });
  const who = (id: string) => NAMES[id] ?? id;
  const presence =
    (p: Record<string, Availability>) =>
    (id: string): Availability =>
      p[id] ?? 'available';

  it.each([
    {
      title: 'all at once: one turn of the ring timeout, whoever can take a call',
      group: {},
      avail: { bob: 'onCall' as Availability },
      leaveOut: [],
      turns: [{ identities: ['ann', 'cat'], seconds: 15 }],
      skipped: ['Bob (on a call)'],
    },
    {
      title: 'in order: a turn each, in the stored order',
      group: { strategy: 'sequential' as const, ringTimeout: 5 },
      avail: {},
      leaveOut: [],
      turns: [
        { identities: ['ann'], seconds: 5 },
        { identities: ['bob'], seconds: 5 },
        { identities: ['cat'], seconds: 5 },
      ],
      skipped: [],
    },
    {
      title: 'the people already on the call are neither rung nor listed as skipped',
      group: { strategy: 'sequential' as const },
      avail: { ann: 'onCall' as Availability, bob: 'onCall' as Availability },
      leaveOut: ['ann', 'bob'],
      turns: [{ identities: ['cat'], seconds: 15 }],
      skipped: [],
    },
    {
      title: 'a member stored twice rings once',
      group: { members: ['ann', 'bob', 'ann'], strategy: 'sequential' as const },
      avail: {},
      leaveOut: [],
      turns: [
        { identities: ['ann'], seconds: 15 },
        { identities: ['bob'], seconds: 15 },
      ],
      skipped: [],
    },
    {
      title: 'nobody who can take it: no turns, and why each cannot',
      group: {},
      avail: {
        ann: 'offline' as Availability,
        bob: 'doNotDisturb' as Availability,
        cat: 'onCall' as Availability,
      },
      leaveOut: [],
      turns: [],
      skipped: ['Ann (offline)', 'Bob (do not disturb)', 'Cat (on a call)'],
    },
    {
      title: 'a ring timeout the form would refuse still rings for 1 s',
      group: { ringTimeout: 0 },
      avail: {},
      leaveOut: ['bob', 'cat'],
      turns: [{ identities: ['ann'], seconds: 1 }],
      skipped: [],
    },
  ])('$title', ({ group, avail, leaveOut, turns, skipped }) => {
    expect(transferTurns(setup(group), presence(avail), who, leaveOut)).toEqual({ turns, skipped });
  });
});

describe('decide: members stored twice', () => {
  it('ring once, all at once and in order', () => {
    const twice = ['ann', 'bob', 'ann'];
    const atOnce = world({ sales: { members: twice } })('sales', OPEN);
    expect(atOnce.plan).toEqual(RING_ANN_BOB);
    const ordered = world({ sales: { members: twice, strategy: 'sequential' } })('sales', OPEN);
    expect(ordered.plan).toEqual(
      inOrder(
        [
          { who: 'ann', seconds: 20, reason: 'Ringing Ann (1 of 2 in order).' },
          { who: 'bob', seconds: 20, reason: 'Ringing Bob (2 of 2 in order).' },
        ],
        NOBODY,
        DECLINED,
      ),
    );
  });
});
