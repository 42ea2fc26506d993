/**
 * The person's other tabs see the calls of the tab that holds the phone, and can act on them.
 *
 * One BroadcastChannel per person: the owner tab publishes a summary of its calls whenever one
 * changes (and answers a newly opened tab's `hello`); follower tabs keep the last list they heard
 * and send commands (accept, reject, hang up, mute, digits) back to the owner, which applies them
 * to its call machines. Audio stays in the owner tab; the Device is never duplicated. Messages are
 * checked on arrival: a message of the wrong shape is counted and ignored, never applied.
 */
import type {
  CallStatus,
  CallSummary,
  HoldStatus,
  TransferStatus,
} from '../../machines/call.selectors';
import { CALL_CONTROL_NAMES } from '../../contracts/call-controls';
import type { Remote } from '../../machines/call.types';
import type { CallDirection, CallUserEvent } from '../../machines/call.setup';

/** What a follower tab may ask the owner to do with a call: anything the call card can send. */
export type MirrorCommand = CallUserEvent;

export type MirrorMessage =
  | { kind: 'hello' }
  | { kind: 'calls'; calls: CallSummary[] }
  | { kind: 'command'; callId: string; command: MirrorCommand };

/** The part of BroadcastChannel the mirror uses. */
export interface MirrorChannel {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  removeEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  close(): void;
}

export interface CallMirror {
  /** The owner tab's calls as this tab last heard them (empty while this tab holds the phone). */
  getCalls: () => readonly CallSummary[];
  subscribe: (listener: () => void) => () => void;
  /** Called by the tab that holds the phone with its calls; sent on when they changed. */
  publish(calls: readonly CallSummary[]): void;
  /** This tab no longer holds the phone: what it published is no longer its to keep. */
  follow(): void;
  /** Asks the owner tab to act on one of its calls. */
  command(callId: string, command: MirrorCommand): void;
  /** Messages ignored because of their shape (for tests and diagnostics). */
  refused(): number;
  stop(): void;
}

export interface CallMirrorDeps {
  channel: MirrorChannel | null;
  /** Whether this tab holds the phone right now. */
  isOwner(): boolean;
  /** The owner's calls now (asked when another tab says hello). */
  current(): readonly CallSummary[];
  /** Applies a follower's command to one of the owner's calls. */
  onCommand(callId: string, command: MirrorCommand): void;
}

const STATUSES: readonly CallStatus[] = [
  'connecting',
  'ringing',
  'incoming',
  'answering',
  'open',
  'reconnecting',
  'ended',
];
const DIRECTIONS: readonly CallDirection[] = ['incoming', 'outgoing'];
const SIMPLE_COMMANDS = [
  'call.accept',
  'call.reject',
  'call.hangUp',
  'call.mute',
  'call.unmute',
  // The call controls that need nothing but the call (src/contracts/call-controls.ts).
  ...CALL_CONTROL_NAMES.filter((name) => name !== 'transfer').map((name) => `call.${name}`),
];
const TRANSFER_STATUSES: readonly TransferStatus[] = [
  'idle',
  'sending',
  'consulting',
  'completing',
  'cancelling',
];

function parseTransfer(v: unknown): CallSummary['transfer'] | undefined {
  if (v === null) return null;
  if (!isRecord(v)) return undefined;
  const { to, mode, answered } = v;
  if (!isText(to) || (mode !== 'blind' && mode !== 'consult') || typeof answered !== 'boolean')
    return undefined;
  return { to, mode, answered };
}
const HOLDS: readonly HoldStatus[] = ['off', 'holding', 'onHold', 'resuming'];
const MAX_CALLS = 20;
const MAX_TEXT = 500;
const DIGITS = /^[0-9*#w]{1,32}$/;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === 'string' && v.length <= MAX_TEXT;
const textOrNull = (v: unknown): v is string | null => v === null || isText(v);
const timeOrNull = (v: unknown): v is number | null =>
  v === null || (typeof v === 'number' && Number.isFinite(v));

function parseRemote(v: unknown): Remote | null {
  if (!isRecord(v)) return null;
  const { identity, number, displayName } = v;
  if (!textOrNull(identity) || !textOrNull(number) || !textOrNull(displayName)) return null;
  return { identity, number, displayName };
}

function parseSummary(v: unknown): CallSummary | null {
  if (!isRecord(v)) return null;
  const remote = parseRemote(v.remote);
  const { callId, direction, status, muted, digits, answeredAt, endedAt, endText } = v;
  const { hold, heldByThem, parking, problem, transferStatus } = v;
  // Absent from an older tab's summary: read as none.
  const routingNote = v.routingNote ?? null;
  const group = v.group ?? null;
  const ringBack = v.ringBack ?? null;
  const warnings = v.warnings ?? [];
  const sid = v.sid ?? null;
  const attempt = v.attempt ?? null;
  const endUnexplained = v.endUnexplained ?? false;
  const transfer = parseTransfer(v.transfer);
  if (
    remote === null ||
    !isText(callId) ||
    callId === '' ||
    !DIRECTIONS.includes(direction as CallDirection) ||
    !STATUSES.includes(status as CallStatus) ||
    typeof muted !== 'boolean' ||
    !HOLDS.includes(hold as HoldStatus) ||
    typeof heldByThem !== 'boolean' ||
    typeof parking !== 'boolean' ||
    !textOrNull(problem) ||
    !TRANSFER_STATUSES.includes(transferStatus as TransferStatus) ||
    transfer === undefined ||
    !isText(digits) ||
    !timeOrNull(answeredAt) ||
    !timeOrNull(endedAt) ||
    !textOrNull(endText) ||
    !textOrNull(routingNote) ||
    !textOrNull(group) ||
    !textOrNull(ringBack) ||
    !textOrNull(sid) ||
    !textOrNull(attempt) ||
    typeof endUnexplained !== 'boolean' ||
    !Array.isArray(warnings) ||
    warnings.length > 20 ||
    !warnings.every(isText)
  )
    return null;
  return {
    callId,
    sid,
    attempt,
    direction: direction as CallDirection,
    status: status as CallStatus,
    remote,
    muted,
    hold: hold as HoldStatus,
    heldByThem,
    parking,
    problem,
    transferStatus: transferStatus as TransferStatus,
    transfer,
    digits,
    answeredAt,
    endedAt,
    endText,
    endUnexplained,
    routingNote,
    group,
    ringBack,
    warnings,
  };
}

function parseCommand(v: unknown): MirrorCommand | null {
  if (!isRecord(v) || typeof v.type !== 'string') return null;
  if (SIMPLE_COMMANDS.includes(v.type)) return { type: v.type } as MirrorCommand;
  if (v.type === 'call.digits' && typeof v.digits === 'string' && DIGITS.test(v.digits))
    return { type: 'call.digits', digits: v.digits };
  if (
    v.type === 'call.transfer' &&
    isText(v.to) &&
    v.to.trim() !== '' &&
    (v.mode === 'blind' || v.mode === 'consult')
  )
    return { type: 'call.transfer', to: v.to, mode: v.mode };
  return null;
}

/** A message from another tab, checked; null when it is not one the mirror knows. */
export function parseMirrorMessage(data: unknown): MirrorMessage | null {
  if (!isRecord(data)) return null;
  if (data.kind === 'hello') return { kind: 'hello' };
  if (data.kind === 'calls') {
    if (!Array.isArray(data.calls) || data.calls.length > MAX_CALLS) return null;
    const calls: CallSummary[] = [];
    for (const item of data.calls) {
      const summary = parseSummary(item);
      if (summary === null) return null;
      calls.push(summary);
    }
    return { kind: 'calls', calls };
  }
  if (data.kind === 'command') {
    const command = parseCommand(data.command);
    if (command === null || !isText(data.callId) || data.callId === '') return null;
    return { kind: 'command', callId: data.callId, command };
  }
  return null;
}

const NONE: readonly CallSummary[] = [];

export function createCallMirror(deps: CallMirrorDeps): CallMirror {
  const { channel } = deps;
  const listeners = new Set<() => void>();
  let heard: readonly CallSummary[] = NONE;
  let published: string | null = null;
  let refused = 0;

  const notify = () => {
    for (const listener of listeners) listener();
  };
  const setHeard = (calls: readonly CallSummary[]) => {
    if (heard === calls || (heard.length === 0 && calls.length === 0)) return;
    heard = calls.length === 0 ? NONE : calls;
    notify();
  };
  const post = (message: MirrorMessage) => channel?.postMessage(message);
  const send = (calls: readonly CallSummary[]) => {
    published = JSON.stringify(calls);
    post({ kind: 'calls', calls: [...calls] });
  };

  const onMessage = (event: MessageEvent) => {
    const message = parseMirrorMessage(event.data);
    if (message === null) {
      refused += 1;
      return;
    }
    const owner = deps.isOwner();
    if (message.kind === 'hello' && owner) send(deps.current());
    else if (message.kind === 'calls' && !owner) setHeard(message.calls);
    else if (message.kind === 'command' && owner) deps.onCommand(message.callId, message.command);
  };
  channel?.addEventListener('message', onMessage);
  post({ kind: 'hello' });

  return {
    getCalls: () => heard,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    publish(calls) {
      // The tab holding the phone shows its own calls, not what it heard as a follower.
      setHeard(NONE);
      if (JSON.stringify(calls) !== published) send(calls);
    },
    follow() {
      published = null;
    },
    command(callId, command) {
      post({ kind: 'command', callId, command });
    },
    refused: () => refused,
    stop() {
      if (published !== null && published !== '[]' && deps.isOwner()) send([]);
      channel?.removeEventListener('message', onMessage);
      channel?.close();
      listeners.clear();
    },
  };
}
