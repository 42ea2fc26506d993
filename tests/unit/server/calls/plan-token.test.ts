/**
 * The rest of a routing plan as carried in a `<Dial action>` URL: read back as written, shared
 * branches written once (so an in-order ring of many people stays short), and anything this server
 * would not have written refused.
 */
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  decodeBranches,
  encodeBranches,
  MAX_TOKEN_LENGTH,
  PlanTokenError,
} from '../../../../server/calls/plan-token';
import { pathOf, type Plan } from '../../../../src/domain/routing/plan';

const voicemail: Plan = {
  kind: 'voicemail',
  groupId: 'grp-a',
  guidanceId: 'gd-vm',
  reason: 'Nobody answered.',
};

/** An in-order ring of `n` people as the engine builds it: each ring's two branches are the next. */
function chain(n: number): Plan {
  let plan: Plan = {
    kind: 'forward',
    rule: { groupId: 'grp-a', when: 'noAnswer', order: 0 },
    target: { kind: 'number', number: '+15551230000' },
    reason: '',
    then: {
      kind: 'dial',
      groupId: 'grp-a',
      number: '+15551230000',
      seconds: 20,
      onNoAnswer: voicemail,
    },
  };
  for (let i = n; i >= 1; i--)
    plan = {
      kind: 'ring',
      groupId: 'grp-a',
      identities: [`person${i}@example.com`],
      seconds: 15,
      reason: '',
      onNoAnswer: plan,
      onBusy: plan,
    };
  return plan;
}

describe('plan tokens', () => {
  it('read back as written, every kind of step', () => {
    const plan: Plan = {
      kind: 'announce',
      groupId: 'grp-a',
      slot: 'closed',
      guidanceId: 'gd-closed',
      then: {
        kind: 'forward',
        rule: { groupId: 'grp-a', when: 'closed', order: 2 },
        target: { kind: 'group', groupId: 'grp-b' },
        reason: '',
        then: {
          kind: 'ring',
          groupId: 'grp-b',
          identities: ['a@example.com', 'b@example.com'],
          seconds: 20,
          reason: '',
          onNoAnswer: voicemail,
          onBusy: {
            kind: 'voicemail',
            groupId: 'grp-b',
            guidanceId: null,
            reason: 'Everyone declined the call.',
          },
        },
      },
    };
    const token = encodeBranches({ noAnswer: plan, busy: null })!;
    expect(token).toMatch(/^1\.[A-Za-z0-9_-]+$/);
    expect(decodeBranches(token)).toEqual({ noAnswer: plan, busy: null });
    expect(decodeBranches(encodeBranches({ noAnswer: null, busy: null })!)).toEqual({
      noAnswer: null,
      busy: null,
    });
  });

  it('shares what the plan shares: thirty people in order fit in a URL', () => {
    const token = encodeBranches({ noAnswer: chain(30), busy: chain(30) })!;
    expect(token.length).toBeLessThan(1000);
    const { noAnswer, busy } = decodeBranches(token);
    // Compared along its path (a deep comparison would walk every one of the 2^30 paths).
    const steps = (plan: Plan | null) =>
      pathOf(plan!).map((p) =>
        p.kind === 'ring' ? p.identities[0] : p.kind === 'dial' ? p.number : p.kind,
      );
    expect(steps(noAnswer)).toEqual(steps(chain(30)));
    expect(steps(noAnswer)).toHaveLength(33);
    // The two branches of each ring are one object again.
    for (const p of pathOf(noAnswer!)) if (p.kind === 'ring') expect(p.onNoAnswer).toBe(p.onBusy);
    expect(steps(busy)).toEqual(steps(noAnswer));
  });

  it('a plan too long to carry is not written', () => {
    const wide: Plan = {
      kind: 'ring',
      groupId: 'grp-a',
      identities: Array.from(
        { length: 50 },
        (_, i) => `${i}-${'x'.repeat(40)}-${Math.random()}@example.com`,
      ),
      seconds: 20,
      reason: '',
      onNoAnswer: voicemail,
      onBusy: voicemail,
    };
    let plan: Plan = wide;
    for (let i = 0; i < 20; i++)
      plan = {
        ...wide,
        identities: wide.identities.map((x) => `${i}${x}`),
        onNoAnswer: plan,
        onBusy: plan,
      };
    expect(encodeBranches({ noAnswer: plan, busy: plan })).toBeNull();
  });

  const token = (json: unknown) =>
    `1.${deflateRawSync(Buffer.from(JSON.stringify(json))).toString('base64url')}`;

  it.each([
    ['not a token', 'hello'],
    ['another version', '2.abc'],
    ['not deflate', `1.${Buffer.from('{}').toString('base64url')}`],
    ['not JSON', `1.${deflateRawSync(Buffer.from('nope')).toString('base64url')}`],
    ['no table', token({ n: -1, b: -1 })],
    [
      'a branch pointing forward (a cycle)',
      token({ t: [['r', 'g', ['a'], 20, 0, 0]], n: 0, b: 0 }),
    ],
    ['a branch out of the table', token({ t: [['v', 'g', null, 'x']], n: 3, b: -1 })],
    ['an unknown step', token({ t: [['x', 'g']], n: 0, b: 0 })],
    [
      'a ring of nobody',
      token({
        t: [
          ['v', 'g', null, 'x'],
          ['r', 'g', [], 20, 0, 0],
        ],
        n: 1,
        b: 1,
      }),
    ],
    [
      'a ring of an hour',
      token({
        t: [
          ['v', 'g', null, 'x'],
          ['r', 'g', ['a'], 3600, 0, 0],
        ],
        n: 1,
        b: 1,
      }),
    ],
    [
      'a dial to a non-number',
      token({
        t: [
          ['v', 'g', null, 'x'],
          ['d', 'g', '0900 premium', 20, 0],
        ],
        n: 1,
        b: 1,
      }),
    ],
    [
      'a bad forwarding target',
      token({
        t: [
          ['v', 'g', null, 'x'],
          ['f', 'g', 'always', 0, { kind: 'moon' }, 0],
        ],
        n: 1,
        b: 1,
      }),
    ],
    ['too long', `1.${'A'.repeat(MAX_TOKEN_LENGTH)}`],
  ])('refuses %s', (_, bad) => {
    expect(() => decodeBranches(bad)).toThrow(PlanTokenError);
  });
});
