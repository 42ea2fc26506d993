/**
 * Reading TwiML answers in tests: the signed parts (announcement URLs, the plan carried in an action
 * URL) are replaced by what they mean, so whole documents can be compared with expected ones.
 */
import { decodeBranches, type Branches } from '../../../../server/calls/plan-token';
import type { Plan } from '../../../../src/domain/routing/plan';

export function describePlan(p: Plan | null): string {
  if (p === null) return 'hang up';
  switch (p.kind) {
    case 'ring':
      return `ring ${p.identities.join('+')} ${p.seconds}s`;
    case 'dial':
      return `dial ${p.number} ${p.seconds}s`;
    case 'voicemail':
      return `voicemail ${p.groupId}`;
    case 'announce':
      return `announce ${p.guidanceId}, ${describePlan(p.then)}`;
    case 'forward': {
      const t = p.target;
      const to =
        t.kind === 'number'
          ? t.number
          : t.kind === 'user'
            ? t.identity
            : t.kind === 'group'
              ? t.groupId
              : 'voicemail';
      return `forward to ${to}, ${describePlan(p.then)}`;
    }
  }
}

export function describeBranches(b: Branches): string {
  return b.noAnswer === b.busy
    ? `{${describePlan(b.noAnswer)}}`
    : `{no answer: ${describePlan(b.noAnswer)}; busy: ${describePlan(b.busy)}}`;
}

/** The document with announcement URLs' signed queries as `?signed` and plans described. */
export function readable(xml: string): string {
  return xml
    .replace(/\.wav\?v=[^<"]*/g, '.wav?signed')
    .replace(
      /plan=([A-Za-z0-9._-]+)/g,
      (_, token: string) => `plan=${describeBranches(decodeBranches(token))}`,
    );
}

/** An expected document written over several lines: the lines are joined without their indent. */
export function doc(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .join('');
}

/** The URLs of every `action` attribute, in order, unescaped. */
export function actions(xml: string): string[] {
  return [...xml.matchAll(/ action="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
}

/** The path and query of a URL on the public origin. */
export const pathOf = (url: string): string => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};
