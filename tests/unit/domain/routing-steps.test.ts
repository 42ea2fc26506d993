/**
 * The routing steps told to a caller and kept in the history row (src/domain/routing/steps.ts):
 * a plan node with its reason is told as the engine wrote it; the rest of a plan carried on in a
 * `<Dial action>` URL has no reasons (server/twilio/plan-token.ts), and is told from what it holds.
 */
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../../src/domain/routing/plan';
import { nameList, planStep } from '../../../src/domain/routing/steps';

const VOICEMAIL: Plan = { kind: 'voicemail', groupId: 'g', guidanceId: null, reason: 'No one.' };
const NAMES = {
  person: (id: string) => ({ 'ann@x.io': 'Ann', 'bob@x.io': 'Bob', 'cat@x.io': 'Cat' })[id] ?? id,
  group: (id: string) => (id === 'grp-sales' ? 'Sales' : id),
};
const ring = (identities: string[], reason: string): Plan => ({
  kind: 'ring',
  groupId: 'g',
  identities,
  seconds: 20,
  reason,
  onNoAnswer: VOICEMAIL,
  onBusy: VOICEMAIL,
});

describe('routing steps in words', () => {
  it('tells a ring by its reason when the plan has one', () => {
    expect(planStep(ring(['ann@x.io'], 'Ringing Ann (1 of 2 in order).'), NAMES)).toEqual({
      kind: 'ring',
      text: 'Ringing Ann (1 of 2 in order).',
    });
  });

  it('tells a ring carried on without its reason by the names of the people it rings', () => {
    expect(planStep(ring(['bob@x.io'], ''), NAMES)?.text).toBe('Ringing Bob.');
    expect(planStep(ring(['ann@x.io', 'bob@x.io', 'cat@x.io'], ''), NAMES)?.text).toBe(
      'Ringing Ann, Bob and Cat at once.',
    );
  });

  it('tells a forward carried on without its reason by its target and rule', () => {
    const forward = (target: Extract<Plan, { kind: 'forward' }>['target']): Plan => ({
      kind: 'forward',
      rule: { groupId: 'g', when: 'noAnswer', order: 0 },
      target,
      reason: '',
      then: VOICEMAIL,
    });
    expect(planStep(forward({ kind: 'user', identity: 'bob@x.io' }), NAMES)?.text).toBe(
      'Forwarded to Bob (rule: when nobody answers).',
    );
    expect(planStep(forward({ kind: 'group', groupId: 'grp-sales' }), NAMES)?.text).toBe(
      'Forwarded to the group Sales (rule: when nobody answers).',
    );
    expect(planStep(forward({ kind: 'voicemail' }), NAMES)?.text).toBe(
      'Forwarded to voicemail (rule: when nobody answers).',
    );
  });

  it('lists names as a sentence', () => {
    expect([nameList([]), nameList(['Ann']), nameList(['Ann', 'Bob'])]).toEqual([
      '',
      'Ann',
      'Ann and Bob',
    ]);
  });
});
