/**
 * Call routing: what happens to a call to a ring group, decided from what admins configured (the
 * group, its business hours, holidays, announcements and forwarding rules) and who can take a call
 * now. Pure: no I/O, no clock; the instant and everyone's presence are arguments. The server writes
 * the plan as TwiML (server/calls/twiml.ts), on every backend.
 *
 * The plan is a tree decided at the start of the call: announcements lead to one end, a ring has
 * a branch for nobody answering and one for everyone declining (the server follows the branch the
 * call takes). How a call is decided:
 *
 * 1. Holiday (the group's calendar) or closed (its schedule; a group with no hours is closed):
 *    the holiday (else closed) announcement plays, then the first rule for that case applies
 *    (`holiday`, falling back to `closed`, then `always`); with none, voicemail.
 * 2. Open: the open announcement (the greeting) plays; an `always` rule forwards at once.
 *    Otherwise the members who can take a call ring, all at once or in order. Members offline,
 *    away, on do-not-disturb or already on a call are skipped; when nobody is left, the `busy`
 *    rule applies (else `noAnswer`, else voicemail).
 * 3. Ringing: the group's ring time is per member (all at once, everyone together for it; in
 *    order, each member in turn for it), and its no-answer time is separate
 *    ({@link noAnswerSeconds}): the no-answer rule applies after that many seconds of ringing and
 *    never before every member has had a turn, so the last turn rings for whatever is left of it.
 *    Nobody answering applies `noAnswer` (else voicemail); everyone declining applies `busy`
 *    (else `noAnswer`, else voicemail). A ring lasts at least a second: a ring time stored below
 *    that (the forms allow 5 s or more, stored data is not checked) counts as 1 s.
 * 4. Forwarding: to a person (rung for the group's ring timeout, voicemail if they do not answer or
 *    cannot take the call), another group (decided from step 1 for that group, at most
 *    {@link MAX_HOPS} groups deep; a loop or a deeper chain is cut, with the reason, to the
 *    current group's voicemail), an external number (dialled where a phone provider exists;
 *    otherwise the caller goes to voicemail, told why) or voicemail. Each cut is logged once.
 */
import { stateAt, type OpenState } from '../hours';
import type { Group, GuidanceSlot } from '../../contracts/records/group';
import type { Rule, When } from '../../contracts/records/forwarding';
import type { Schedule } from '../../contracts/records/schedule';
import {
  MAX_HOPS,
  type AppliedRule,
  type Availability,
  type Decision,
  type GroupSetup,
  type Plan,
  type RoutingInput,
} from './plan';
import { nameList } from './steps';

const CLOSED: Schedule = { timeZone: 'UTC', week: {} };

/** The first rule (by `order`) for the first of `whens` that has one. */
function ruleFor(rules: readonly Rule[], whens: readonly When[]): Rule | null {
  for (const when of whens) {
    let best: Rule | null = null;
    for (const r of rules) if (r.when === when && (best === null || r.order < best.order)) best = r;
    if (best) return best;
  }
  return null;
}

/** Decides what happens to a call to `input.groupId` arriving at `input.at`. */
export function decide(input: RoutingInput): Decision {
  const first = input.setupOf(input.groupId);
  if (!first) {
    return {
      groupId: input.groupId,
      situation: 'closed',
      holiday: null,
      plan: {
        kind: 'voicemail',
        groupId: input.groupId,
        guidanceId: null,
        reason: 'No such group.',
      },
      cuts: [`${input.groupId} is not a ring group`],
    };
  }
  const router = new Router(input);
  const state = router.stateOf(first);
  const plan = router.route(first, [first.id]);
  return {
    groupId: first.id,
    situation: state.reason,
    holiday: state.holiday?.label ?? null,
    plan,
    cuts: router.cuts,
  };
}

function voicemail(setup: GroupSetup, reason: string): Plan {
  return {
    kind: 'voicemail',
    groupId: setup.id,
    guidanceId: setup.group.guidance.voicemail ?? null,
    reason,
  };
}

function announce(setup: GroupSetup, slots: readonly GuidanceSlot[], then: Plan): Plan {
  for (const slot of slots) {
    const id = setup.group.guidance[slot];
    if (id) return { kind: 'announce', groupId: setup.id, slot, guidanceId: id, then };
  }
  return then;
}

/**
 * One decision's steps. A class rather than functions inside `decide`: the server runs under tsx,
 * which names every function made in a call (a `defineProperty` each), a fifth of a decision's time.
 */
class Router {
  readonly cuts: string[] = [];
  /** Each group's situation, read once per decision. */
  private readonly states = new Map<string, OpenState>();

  constructor(private readonly input: RoutingInput) {}

  stateOf(setup: GroupSetup): OpenState {
    let s = this.states.get(setup.id);
    if (!s) {
      s = stateAt(setup.schedule ?? CLOSED, setup.calendar, this.input.at);
      this.states.set(setup.id, s);
    }
    return s;
  }

  private cut(why: string): void {
    if (!this.cuts.includes(why)) this.cuts.push(why);
  }

  private who(identity: string): string {
    return this.input.nameOf?.(identity) ?? identity;
  }

  private groupName(id: string): string {
    return this.input.setupOf(id)?.group.name || id;
  }

  /** `rule` applied in `setup`, having come through `path` (group ids, first dialled first). */
  private forward(setup: GroupSetup, rule: Rule, path: readonly string[]): Plan {
    const input = this.input;
    const applied: AppliedRule = { groupId: setup.id, when: rule.when, order: rule.order };
    const t = rule.target;
    const seconds = Math.max(1, setup.group.ringTimeout);
    let then: Plan;
    let reason: string;
    if (t.kind === 'voicemail') {
      reason = 'to voicemail';
      then = voicemail(setup, 'The forwarding rule sends the call to voicemail.');
    } else if (t.kind === 'user') {
      const name = this.who(t.identity);
      reason = `to ${name}`;
      const can = input.availabilityOf(t.identity);
      then =
        can === 'available'
          ? {
              kind: 'ring',
              groupId: setup.id,
              identities: [t.identity],
              seconds,
              reason: `Ringing ${name}.`,
              onNoAnswer: voicemail(setup, `${name} did not answer.`),
              onBusy: voicemail(setup, `${name} declined the call.`),
            }
          : voicemail(setup, `${name} cannot take the call (${describe(can)}).`);
    } else if (t.kind === 'number') {
      reason = `to ${t.number}`;
      then = input.externalCalls
        ? {
            kind: 'dial',
            groupId: setup.id,
            number: t.number,
            seconds,
            onNoAnswer: voicemail(setup, `${t.number} did not answer.`),
          }
        : voicemail(
            setup,
            `Forwarding to ${t.number} needs a phone provider, and none is configured.`,
          );
    } else {
      reason = `to the group ${this.groupName(t.groupId)}`;
      const next = input.setupOf(t.groupId);
      if (path.includes(t.groupId)) {
        const loop = [...path, t.groupId].map((id) => this.groupName(id)).join(' → ');
        this.cut(`forwarding loop cut: ${loop}`);
        then = voicemail(
          setup,
          `Forwarding to ${this.groupName(t.groupId)} would loop (${loop}); it was cut.`,
        );
      } else if (path.length >= MAX_HOPS) {
        const chain = [...path, t.groupId].map((id) => this.groupName(id)).join(' → ');
        this.cut(`forwarding chain too long, cut: ${chain}`);
        then = voicemail(
          setup,
          `Forwarding to ${this.groupName(t.groupId)} would pass through more than ${MAX_HOPS} groups; it was cut.`,
        );
      } else if (!next) {
        this.cut(`forwarding to a group that no longer exists: ${t.groupId}`);
        then = voicemail(setup, `The group ${t.groupId} no longer exists.`);
      } else {
        then = this.route(next, [...path, t.groupId]);
      }
    }
    return { kind: 'forward', rule: applied, target: t, reason: `Forwarded ${reason}.`, then };
  }

  /** Applies the first rule of `whens`, else voicemail with `why`. */
  private fallBack(
    setup: GroupSetup,
    whens: readonly When[],
    path: readonly string[],
    why: string,
  ): Plan {
    const rule = ruleFor(setup.rules, whens);
    return rule ? this.forward(setup, rule, path) : voicemail(setup, why);
  }

  route(setup: GroupSetup, path: readonly string[]): Plan {
    const s = this.stateOf(setup);
    if (s.reason === 'holiday') {
      const then = this.fallBack(
        setup,
        ['holiday', 'closed', 'always'],
        path,
        `Closed for ${s.holiday?.label ?? 'a holiday'}.`,
      );
      return announce(setup, ['holiday', 'closed'], then);
    }
    if (s.reason === 'closed') {
      const then = this.fallBack(setup, ['closed', 'always'], path, 'Outside business hours.');
      return announce(setup, ['closed'], then);
    }
    const always = ruleFor(setup.rules, ['always']);
    if (always) return announce(setup, ['open'], this.forward(setup, always, path));
    return announce(setup, ['open'], this.ring(setup, path));
  }

  private ring(setup: GroupSetup, path: readonly string[]): Plan {
    const g = setup.group;
    const { ready, skipped } = readyMembers(g, this.input.availabilityOf, (id) => this.who(id));
    if (ready.length === 0) {
      const why =
        g.members.length === 0
          ? 'The group has no members.'
          : `Nobody can take the call: ${skipped.join(', ')}.`;
      return this.fallBack(setup, ['busy', 'noAnswer'], path, why);
    }
    const noAnswer = ruleFor(setup.rules, ['noAnswer']);
    const whenNoAnswer = this.fallBack(setup, ['noAnswer'], path, 'Nobody answered.');
    // Everyone declining with no busy rule applies the no-answer rule: the same plan, built once.
    const whenBusy =
      noAnswer && !ruleFor(setup.rules, ['busy'])
        ? whenNoAnswer
        : this.fallBack(setup, ['busy', 'noAnswer'], path, 'Everyone declined the call.');
    const skippedNote = skipped.length > 0 ? ` Skipped: ${skipped.join(', ')}.` : '';
    const turns = ringTurns(g, ready, noAnswerSeconds(g, noAnswer));
    if (g.strategy === 'simultaneous') {
      return {
        kind: 'ring',
        groupId: setup.id,
        identities: ready,
        seconds: turns[0]!.seconds,
        reason: `Ringing ${nameList(ready.map((id) => this.who(id)))} at once.${skippedNote}`,
        onNoAnswer: whenNoAnswer,
        onBusy: whenBusy,
      };
    }
    let plan: Plan | null = null;
    for (let i = turns.length - 1; i >= 0; i--) {
      const turn = turns[i]!;
      plan = {
        kind: 'ring',
        groupId: setup.id,
        identities: turn.identities,
        seconds: turn.seconds,
        reason: `Ringing ${this.who(turn.identities[0]!)} (${i + 1} of ${turns.length} in order).${i === 0 ? skippedNote : ''}`,
        onNoAnswer: plan ?? whenNoAnswer,
        onBusy: plan ?? whenBusy,
      };
    }
    return plan!;
  }
}

/**
 * A group's members who can take a call now, in ringing order and each once (a member stored twice
 * rings once), and the others as "Name (why)".
 */
function readyMembers(
  group: Group,
  availabilityOf: (identity: string) => Availability,
  who: (identity: string) => string,
  leaveOut: readonly string[] = [],
): { ready: string[]; skipped: string[] } {
  const ready: string[] = [];
  const skipped: string[] = [];
  const seen = new Set<string>(leaveOut);
  for (const m of group.members) {
    if (seen.has(m)) continue;
    seen.add(m);
    const can = availabilityOf(m);
    if (can === 'available') ready.push(m);
    else skipped.push(`${who(m)} (${describe(can)})`);
  }
  return { ready, skipped };
}

/** One turn of a group's ringing: who rings at once, and for how many seconds. */
export interface RingTurn {
  identities: string[];
  seconds: number;
}

/**
 * Seconds of ringing before the no-answer rule applies: the group's own no-answer time; for a group
 * stored before it had one, its no-answer rule's delay (which was the same clock); otherwise 0 (the
 * members' turns alone decide).
 */
export function noAnswerSeconds(group: Group, noAnswerRule: Rule | null): number {
  const stored = group.noAnswerTimeout ?? noAnswerRule?.after ?? 0;
  return Number.isFinite(stored) ? Math.max(0, stored) : 0;
}

/**
 * How `ready` ring in `group`: all at once in one turn of the ring time, or in order, a turn each
 * of the ring time; the last turn is lengthened so the ringing lasts at least `atLeast` seconds.
 * Every member gets a turn, whatever `atLeast` is.
 */
function ringTurns(group: Group, ready: readonly string[], atLeast: number): RingTurn[] {
  const timeout = Number.isFinite(group.ringTimeout) ? Math.max(1, group.ringTimeout) : 1;
  const turns: RingTurn[] =
    group.strategy === 'simultaneous'
      ? [{ identities: [...ready], seconds: timeout }]
      : ready.map((identity) => ({ identities: [identity], seconds: timeout }));
  const last = turns.at(-1);
  if (last) {
    const before = (turns.length - 1) * timeout;
    last.seconds = Math.max(last.seconds, Math.ceil(atLeast - before));
  }
  return turns;
}

/**
 * A colleague transferring a call to a group: the members who can take a call now ring as the group
 * rings them (all at once, or in order, each turn for the group's ring time). Hours, holidays,
 * announcements and forwarding rules are not applied: they decide calls from outside, and a
 * transferred call stays the transferrer's until someone takes it (nobody answering sends it back
 * to them). The people already on the call (`leaveOut`) are neither rung nor listed. `turns` is
 * empty when nobody can take it now; `skipped` says who cannot, and why.
 */
export function transferTurns(
  setup: GroupSetup,
  availabilityOf: (identity: string) => Availability,
  nameOf: (identity: string) => string = (id) => id,
  leaveOut: readonly string[] = [],
): { turns: RingTurn[]; skipped: string[] } {
  const { ready, skipped } = readyMembers(setup.group, availabilityOf, nameOf, leaveOut);
  return { turns: ready.length === 0 ? [] : ringTurns(setup.group, ready, 0), skipped };
}

function describe(a: Availability): string {
  return a === 'onCall'
    ? 'on a call'
    : a === 'away'
      ? 'away'
      : a === 'doNotDisturb'
        ? 'do not disturb'
        : a === 'offline'
          ? 'offline'
          : 'available';
}
