/**
 * The routing decisions a caller is told of, and a group call's history row keeps, in words. The
 * server tells them as its webhooks write the plan's TwiML (a Voice SDK user-defined message each,
 * server/calls/tell.ts) and keeps them for the row, on every backend.
 */
import type { RoutingStep } from '../../contracts/records/call';
import type { GuidanceSlot } from '../../contracts/records/group';
import type { Target, When } from '../../contracts/records/forwarding';
import type { Decision, Plan } from './plan';

export type StepNote = Pick<RoutingStep, 'kind' | 'text'>;

const SLOT_WORDS: Record<GuidanceSlot, string> = {
  open: 'greeting',
  closed: 'closed',
  holiday: 'holiday',
  hold: 'on-hold',
  voicemail: 'voicemail',
};

const WHEN_WORDS: Record<When, string> = {
  always: 'always',
  noAnswer: 'when nobody answers',
  busy: 'when everyone is busy',
  closed: 'outside business hours',
  holiday: 'on a holiday',
};

/** Whether the group is open, closed or on a holiday now. */
export function situationStep(
  groupName: string,
  decision: Pick<Decision, 'situation' | 'holiday'>,
): StepNote {
  return {
    kind: 'situation',
    text:
      decision.situation === 'open'
        ? `${groupName} is open.`
        : decision.situation === 'holiday'
          ? `${groupName} is closed for ${decision.holiday ?? 'a holiday'}.`
          : `${groupName} is closed (outside business hours).`,
  };
}

/** Names as a sentence: "Ann", "Ann and Bob", "Ann, Bob and Cat". */
export function nameList(names: readonly string[]): string {
  return names.length <= 1
    ? (names[0] ?? '')
    : `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`;
}

/** People's and groups' names, for a plan that carries no reasons. */
export interface StepNames {
  person(identity: string): string;
  group(groupId: string): string;
}

function targetWords(target: Target, names: StepNames): string {
  switch (target.kind) {
    case 'voicemail':
      return 'to voicemail';
    case 'user':
      return `to ${names.person(target.identity)}`;
    case 'number':
      return `to ${target.number}`;
    case 'group':
      return `to the group ${names.group(target.groupId)}`;
  }
}

const ID_NAMES: StepNames = { person: (id) => id, group: (id) => id };

/**
 * The step a plan node is told as, when the call reaches it; null for one told by what follows. The
 * rest of a plan carried on from an earlier webhook (in a `<Dial action>` URL,
 * server/calls/plan-token.ts) has no reasons: its rings and forwards are told from what they hold,
 * with `names`.
 */
export function planStep(plan: Plan, names: StepNames = ID_NAMES): StepNote | null {
  switch (plan.kind) {
    case 'announce':
      return { kind: 'announce', text: `Playing the ${SLOT_WORDS[plan.slot]} announcement.` };
    case 'forward': {
      const reason = plan.reason || `Forwarded ${targetWords(plan.target, names)}.`;
      return {
        kind: 'forward',
        text: `${reason.replace(/\.$/, '')} (rule: ${WHEN_WORDS[plan.rule.when]}).`,
      };
    }
    case 'ring': {
      const who = plan.identities.map((id) => names.person(id));
      return {
        kind: 'ring',
        text:
          plan.reason ||
          (who.length > 1 ? `Ringing ${nameList(who)} at once.` : `Ringing ${nameList(who)}.`),
      };
    }
    case 'voicemail':
      return {
        kind: 'voicemail',
        text: `${plan.reason} Voicemail: the caller can leave a message.`,
      };
    case 'dial':
      return null;
  }
}

/** A ring that ended with nobody on the call. */
export const ringEndStep = (declined: boolean, seconds: number): StepNote =>
  declined
    ? { kind: 'busy', text: 'Declined.' }
    : { kind: 'noAnswer', text: `Nobody answered in ${seconds} s.` };

export const answeredStep = (name: string): StepNote => ({
  kind: 'answered',
  text: `${name} answered.`,
});

export const RECORDING_STEP: StepNote = { kind: 'recording', text: 'Recording the message.' };
