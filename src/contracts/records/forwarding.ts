/**
 * A forwarding rule of a ring group, an item of the `forwarding:{groupId}` list (applied in
 * `order`): when a call is sent on, and where. Written by admins; the rules a rule must meet among
 * the groups (no loop, a real target) are `validateRule` in src/domain/forwarding.ts.
 */
import * as v from 'valibot';
import { defineRecord } from '../record';

export const WHENS = ['always', 'noAnswer', 'busy', 'closed', 'holiday'] as const;
export type When = (typeof WHENS)[number];

export const TargetSchema = v.variant('kind', [
  v.object({ kind: v.literal('number'), number: v.string() }),
  v.object({ kind: v.literal('user'), identity: v.string() }),
  v.object({ kind: v.literal('group'), groupId: v.string() }),
  v.object({ kind: v.literal('voicemail') }),
]);
export type Target = v.InferOutput<typeof TargetSchema>;

export const DEFAULT_FORWARD_AFTER = 20;

export const ForwardingRuleSchema = v.object({
  when: v.picklist(WHENS, 'Choose when calls are forwarded.'),
  /** Seconds of ringing before `noAnswer` applies. */
  after: v.optional(v.number(), DEFAULT_FORWARD_AFTER),
  target: TargetSchema,
  /** Position among the group's rules (lower first). */
  order: v.optional(v.number(), 0),
});
export type Rule = v.InferOutput<typeof ForwardingRuleSchema>;

/** A rule without a known kind or target is no rule: it is not applied. */
export const forwardingRuleRecord = defineRecord(
  'forwarding rule',
  ForwardingRuleSchema,
  { when: 'always', after: DEFAULT_FORWARD_AFTER, target: { kind: 'voicemail' }, order: 0 },
  ['when', 'target'],
);
