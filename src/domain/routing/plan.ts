/**
 * What call routing decides, as data the server walks: the plan of a call to a ring group (a tree
 * of announcements, rings, forwards, dials and voicemail), the inputs it is decided from, and the
 * path a call takes through a plan.
 */
import type { Group, GuidanceSlot } from '../../contracts/records/group';
import type { Rule, Target, When } from '../../contracts/records/forwarding';
import type { Schedule } from '../../contracts/records/schedule';
import type { Calendar } from '../../contracts/records/calendar';

/** How many groups a call may pass through (the first one included). */
export const MAX_HOPS = 4;

/**
 * Whether someone can take a call now, as routing sees them: only `available` people ring for a
 * group; `away` (their status in the top bar) and `doNotDisturb` (their phone's setting) take them
 * out of group calls as surely as being offline or on a call.
 */
export type Availability = 'available' | 'onCall' | 'away' | 'doNotDisturb' | 'offline';

/** A ring group with everything that decides its calls. */
export interface GroupSetup {
  id: string;
  group: Group;
  /** Null when the group has no hours document: it is closed. */
  schedule: Schedule | null;
  calendar: Calendar | null;
  /** Its forwarding rules, in any order (applied by `order`). */
  rules: readonly Rule[];
}

export interface RoutingInput {
  /** The group dialled. */
  groupId: string;
  /** The instant the call arrives (ms since the epoch). */
  at: number;
  setupOf: (groupId: string) => GroupSetup | null;
  availabilityOf: (identity: string) => Availability;
  /** Whether external numbers can be dialled (a phone provider is configured). */
  externalCalls: boolean;
  /** A person's name for the reasons (their identity when absent). */
  nameOf?: (identity: string) => string;
}

/** Which rule applied, for the history and Test this group. */
export interface AppliedRule {
  groupId: string;
  when: When;
  order: number;
}

export type Plan =
  | {
      kind: 'announce';
      groupId: string;
      slot: GuidanceSlot;
      /** The `guidance` map key to play. */
      guidanceId: string;
      then: Plan;
    }
  | {
      kind: 'ring';
      groupId: string;
      /** Rung at once; the first to answer takes the call. */
      identities: string[];
      seconds: number;
      /** Why these people ring (a sentence for Test this group). */
      reason: string;
      onNoAnswer: Plan;
      onBusy: Plan;
    }
  | { kind: 'forward'; rule: AppliedRule; target: Target; reason: string; then: Plan }
  | { kind: 'dial'; groupId: string; number: string; seconds: number; onNoAnswer: Plan }
  | {
      kind: 'voicemail';
      /** Whose voicemail (its members hear the message). */
      groupId: string;
      /** The group's voicemail announcement, or null for the built-in one. */
      guidanceId: string | null;
      reason: string;
    };

/** The situation the call arrived in, for Test this group. */
export interface Decision {
  groupId: string;
  situation: 'open' | 'closed' | 'holiday';
  /** The holiday's name on a holiday. */
  holiday: string | null;
  plan: Plan;
  /** Forwarding that was cut (a loop, too many hops), to be logged. */
  cuts: string[];
}

/** The steps of `plan` along one path: the branch a call takes when every ring gets `outcome`. */
export function pathOf(plan: Plan, outcome: 'noAnswer' | 'busy' = 'noAnswer'): Plan[] {
  const out: Plan[] = [];
  let p: Plan | null = plan;
  while (p) {
    out.push(p);
    p =
      p.kind === 'announce' || p.kind === 'forward'
        ? p.then
        : p.kind === 'ring'
          ? outcome === 'busy'
            ? p.onBusy
            : p.onNoAnswer
          : p.kind === 'dial'
            ? p.onNoAnswer
            : null;
  }
  return out;
}
