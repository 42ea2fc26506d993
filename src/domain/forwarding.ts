/**
 * Forwarding rules of a ring group (`forwarding:{groupId}` list, applied in `order`): when a call is
 * forwarded and where. Pure: parsing, validation and the loop check over the groups' rules.
 */
import type { JsonObject } from '../contracts/record';
import { normaliseNumber } from '../contracts/records/group';
import {
  forwardingRuleRecord,
  TargetSchema,
  WHENS,
  type Rule,
  type Target,
  type When,
} from '../contracts/records/forwarding';
import * as v from 'valibot';

export const WHEN_LABELS: Readonly<Record<When, string>> = {
  always: 'Always',
  noAnswer: 'When nobody answers',
  busy: 'When everyone is busy',
  closed: 'Outside business hours',
  holiday: 'On a holiday',
};

/** Whether `value` is one of the rule kinds. */
export const isWhen = (value: unknown): value is When =>
  typeof value === 'string' && (WHENS as readonly string[]).includes(value);

/** A stored forwarding target, or null when it is not one. */
export function targetFromData(raw: unknown): Target | null {
  const result = v.safeParse(TargetSchema, raw);
  return result.success ? result.output : null;
}

/** A stored rule, or null when it is none (no known kind or target). */
export const ruleFromData = (data: unknown): Rule | null => forwardingRuleRecord.read(data);

export function ruleToData(rule: Rule): JsonObject {
  const target =
    rule.target.kind === 'number'
      ? { kind: 'number', number: normaliseNumber(rule.target.number) }
      : rule.target;
  return { when: rule.when, after: rule.after, target, order: rule.order };
}

export type RuleErrors = Partial<Record<'when' | 'after' | 'target', string>>;

/**
 * A rule a person can save: a real target, a sensible delay, and no loop. `rulesOf(groupId)` gives
 * the other groups' group targets, so a chain back to this group (directly or through others) is
 * refused.
 */
export function validateRule(
  groupId: string,
  rule: Rule,
  groups: ReadonlySet<string>,
  people: ReadonlySet<string>,
  groupTargetsOf: (groupId: string) => readonly string[],
): RuleErrors {
  const errors: RuleErrors = {};
  if (!isWhen(rule.when)) errors.when = 'Choose when calls are forwarded.';
  if (
    rule.when === 'noAnswer' &&
    (!Number.isInteger(rule.after) || rule.after < 5 || rule.after > 300)
  )
    errors.after = 'Use a whole number of seconds from 5 to 300.';
  const t = rule.target;
  if (t.kind === 'number') {
    if (!/^\+\d{8,15}$/.test(normaliseNumber(t.number)))
      errors.target = 'Enter a phone number in international form, like +442079460000.';
  } else if (t.kind === 'user') {
    if (!people.has(t.identity)) errors.target = 'Choose someone on the team.';
  } else if (t.kind === 'voicemail') {
    // Every group has a voicemail box.
  } else if (!groups.has(t.groupId)) {
    errors.target = 'Choose a ring group.';
  } else if (t.groupId === groupId) {
    errors.target = 'A group cannot forward to itself.';
  } else if (reaches(t.groupId, groupId, groupTargetsOf)) {
    errors.target = 'That group already forwards back to this one: calls would go round in a loop.';
  }
  return errors;
}

/** Whether following forwarding from `from` can arrive at `to`. */
export function reaches(
  from: string,
  to: string,
  groupTargetsOf: (groupId: string) => readonly string[],
): boolean {
  const seen = new Set<string>();
  const queue = [from];
  while (queue.length > 0) {
    const g = queue.shift()!;
    if (g === to) return true;
    if (seen.has(g)) continue;
    seen.add(g);
    queue.push(...groupTargetsOf(g));
  }
  return false;
}

export function describeTarget(
  target: Target,
  nameOfPerson: (identity: string) => string,
  nameOfGroup: (id: string) => string,
): string {
  if (target.kind === 'number') return target.number;
  if (target.kind === 'user') return nameOfPerson(target.identity);
  if (target.kind === 'voicemail') return 'voicemail';
  return `the group ${nameOfGroup(target.groupId)}`;
}
