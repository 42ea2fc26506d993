import type { CallAdapterEvent } from '../../machines/call.setup';
/**
 * What the server says on a call (Voice SDK user-defined messages, server/calls/tell.ts), as the
 * call machine hears it: its messages about the other side (held, resumed, a consultation answered
 * or ended, a routing decision), and the text inside the SDK's error messages.
 */

/** The server's message on a call (`{"event":…}`: held, resumed, party, consultAnswered, consultEnded) as a call event, or null. */
export function heldEvent(content: unknown): CallAdapterEvent | null {
  let data: unknown = content;
  if (typeof content === 'string') {
    try {
      data = JSON.parse(content) as unknown;
    } catch {
      return null;
    }
  }
  if (typeof data !== 'object' || data === null) return null;
  const event = (data as { event?: unknown }).event;
  if (event === 'held') return { type: 'call.heldByThem' };
  if (event === 'resumed') return { type: 'call.resumedByThem' };
  if (event === 'consultAnswered') return { type: 'call.consultAnswered' };
  if (event === 'routing') {
    const { kind, text } = data as { kind?: unknown; text?: unknown };
    if (typeof kind !== 'string' || typeof text !== 'string' || text === '' || text.length > 500)
      return null;
    return { type: 'call.routed', kind: kind.slice(0, 40), text };
  }
  if (event === 'party') {
    const { identity, number, name } = data as {
      identity?: unknown;
      number?: unknown;
      name?: unknown;
    };
    const text = (x: unknown): string | null =>
      typeof x === 'string' && x !== '' && x.length <= 200 ? x : null;
    const who = { identity: text(identity), number: text(number) };
    if (who.identity === null && who.number === null) return null;
    return { type: 'call.party', ...who, name: text(name) ?? who.identity ?? who.number ?? '' };
  }
  if (event === 'consultEnded') {
    const reason = (data as { reason?: unknown }).reason;
    return {
      type: 'call.consultEnded',
      reason:
        typeof reason === 'string' && reason !== '' && reason.length <= 300
          ? reason
          : 'The transfer did not happen.',
    };
  }
  return null;
}

/** The SDK prefixes an error's message with its name and code: "BusyHere (31486): …". */
export function serverSentence(message: string): string {
  return message.replace(/^[A-Za-z]+ \(\d+\): /, '');
}
