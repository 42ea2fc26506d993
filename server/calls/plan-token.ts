/**
 * The rest of a call's routing plan, carried in a `<Dial action>` URL. The plan is decided once, when
 * the call arrives (src/domain/routing/engine.ts); when a ring ends, Twilio asks the action URL what
 * to do next, and the URL itself holds the branches still ahead. So any server behind the public URL
 * can continue any call, a restart loses none, and nothing is stored per call for routing. Twilio
 * signs the URL with the request (X-Twilio-Signature covers the query), so a token that reaches a
 * handler is one this server wrote; it is still read defensively.
 *
 * Layout: `1.` + base64url(deflate-raw(JSON)). The JSON is a table of nodes in post-order (a node's
 * branches come before it, the root last), each branch a table index; branches the engine shares
 * (an in-order ring's no-answer and declined branches are the same next ring) are written once, so
 * the size grows with the plan, not with its paths. Reasons shown by Test this group are left out;
 * a voicemail keeps its reason, which the history row records.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { isWhen, targetFromData } from '../../src/domain/forwarding';
import { GUIDANCE_SLOTS, type GuidanceSlot } from '../../src/contracts/records/group';
import type { Target } from '../../src/contracts/records/forwarding';
import type { Plan } from '../../src/domain/routing/plan';

/** What follows a ring or a dial: the branch for nobody answering and the one for a decline. */
export interface Branches {
  noAnswer: Plan | null;
  busy: Plan | null;
}

/** Tokens longer than this are not written (Twilio's URLs have limits): see {@link encodeBranches}. */
export const MAX_TOKEN_LENGTH = 3000;
const MAX_NODES = 400;

export class PlanTokenError extends Error {
  override readonly name = 'PlanTokenError';
}

type Node = unknown[];

/** Branches → token; null when the plan is too large to carry (the caller sends the call on). */
export function encodeBranches(branches: Branches): string | null {
  const table: Node[] = [];
  const seen = new Map<Plan, number>();
  const ref = (plan: Plan | null): number => (plan === null ? -1 : add(plan));
  function add(plan: Plan): number {
    const known = seen.get(plan);
    if (known !== undefined) return known;
    let node: Node;
    switch (plan.kind) {
      case 'announce':
        node = ['a', plan.groupId, plan.slot, plan.guidanceId, ref(plan.then)];
        break;
      case 'ring':
        node = [
          'r',
          plan.groupId,
          plan.identities,
          plan.seconds,
          ref(plan.onNoAnswer),
          ref(plan.onBusy),
        ];
        break;
      case 'forward':
        node = [
          'f',
          plan.rule.groupId,
          plan.rule.when,
          plan.rule.order,
          plan.target,
          ref(plan.then),
        ];
        break;
      case 'dial':
        node = ['d', plan.groupId, plan.number, plan.seconds, ref(plan.onNoAnswer)];
        break;
      case 'voicemail':
        node = ['v', plan.groupId, plan.guidanceId, plan.reason];
        break;
    }
    table.push(node);
    seen.set(plan, table.length - 1);
    return table.length - 1;
  }
  const noAnswer = ref(branches.noAnswer);
  const busy = ref(branches.busy);
  const json = JSON.stringify({ t: table, n: noAnswer, b: busy });
  let token = written.get(json);
  if (token === undefined) {
    token = `1.${deflateRawSync(Buffer.from(json, 'utf8')).toString('base64url')}`;
    if (written.size >= 500) written.clear();
    written.set(json, token);
  }
  return token.length > MAX_TOKEN_LENGTH ? null : token;
}

/** Tokens written lately, by their JSON: calls to one group mostly carry the same plan. */
const written = new Map<string, string>();

const isString = (v: unknown): v is string => typeof v === 'string';
const SLOTS: readonly string[] = GUIDANCE_SLOTS;

function target(raw: unknown): Target {
  const t = targetFromData(raw);
  if (t === null) throw new PlanTokenError('bad forwarding target');
  return t;
}

const seconds = (v: unknown): number => {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 600)
    throw new PlanTokenError('bad ring time');
  return v;
};

/** Token → branches; throws {@link PlanTokenError} for anything this server would not have written. */
export function decodeBranches(token: string): Branches {
  if (token.length > MAX_TOKEN_LENGTH || !/^1\.[A-Za-z0-9_-]+$/.test(token))
    throw new PlanTokenError('not a plan token');
  let parsed: unknown;
  try {
    const json = inflateRawSync(Buffer.from(token.slice(2), 'base64url'), {
      maxOutputLength: 256 * 1024,
    }).toString('utf8');
    parsed = JSON.parse(json);
  } catch {
    throw new PlanTokenError('not a plan token');
  }
  const { t, n, b } = (parsed ?? {}) as { t?: unknown; n?: unknown; b?: unknown };
  if (!Array.isArray(t) || t.length > MAX_NODES) throw new PlanTokenError('bad plan table');
  const nodes: Plan[] = [];
  /** A branch may only point at a node before it: no cycles, no forward references. */
  const at = (index: unknown, before: number): Plan | null => {
    if (index === -1) return null;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= before)
      throw new PlanTokenError('bad branch');
    return nodes[index]!;
  };
  const need = (index: unknown, before: number): Plan => {
    const plan = at(index, before);
    if (plan === null) throw new PlanTokenError('missing branch');
    return plan;
  };
  t.forEach((raw: unknown, i) => {
    if (!Array.isArray(raw) || !isString(raw[0]) || !isString(raw[1]))
      throw new PlanTokenError('bad plan node');
    const [kind, groupId] = raw as [string, string, ...unknown[]];
    if (kind === 'a' && isString(raw[2]) && SLOTS.includes(raw[2]) && isString(raw[3]))
      nodes.push({
        kind: 'announce',
        groupId,
        slot: raw[2] as GuidanceSlot,
        guidanceId: raw[3],
        then: need(raw[4], i),
      });
    else if (
      kind === 'r' &&
      Array.isArray(raw[2]) &&
      raw[2].length > 0 &&
      raw[2].length <= 50 &&
      raw[2].every(isString)
    )
      nodes.push({
        kind: 'ring',
        groupId,
        identities: raw[2],
        seconds: seconds(raw[3]),
        reason: '',
        onNoAnswer: need(raw[4], i),
        onBusy: need(raw[5], i),
      });
    else if (kind === 'f' && isWhen(raw[2]) && typeof raw[3] === 'number')
      nodes.push({
        kind: 'forward',
        rule: { groupId, when: raw[2], order: raw[3] },
        target: target(raw[4]),
        reason: '',
        then: need(raw[5], i),
      });
    else if (kind === 'd' && isString(raw[2]) && /^\+[1-9][0-9]{7,14}$/.test(raw[2]))
      nodes.push({
        kind: 'dial',
        groupId,
        number: raw[2],
        seconds: seconds(raw[3]),
        onNoAnswer: need(raw[4], i),
      });
    else if (kind === 'v' && (raw[2] === null || isString(raw[2])) && isString(raw[3]))
      nodes.push({
        kind: 'voicemail',
        groupId,
        guidanceId: raw[2] as string | null,
        reason: raw[3],
      });
    else throw new PlanTokenError('bad plan node');
  });
  return { noAnswer: at(n, nodes.length), busy: at(b, nodes.length) };
}
