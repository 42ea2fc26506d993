/**
 * The registry of live calls and their sides: making a call, the side each person is on, bridging
 * their legs, one side leaving a call that goes on, and the end of a call (every leg closed, every
 * id remembered for a minute, the history row written).
 */
import { randomBytes } from 'node:crypto';
import { bridge } from './media';
import {
  CallControlError,
  sid,
  vacant,
  type Call,
  type Conn,
  type Notice,
  type Side,
  type SideName,
  type VoiceState,
} from './model';
import type { Outcome } from '../../../src/contracts/records/call';
import { noteProgress, recordEnd, setBusy } from './history';
import { leavePark } from './hold';
import { send } from './signalling';

export const nameOf = (vs: VoiceState, identity: string): string =>
  vs.options.nameOf?.(identity) ?? identity;

/** Ends a side's SDK call: a plain hangup, or one carrying the error that says why. */
export function hangUpSide(vs: VoiceState, side: Side, notice: Notice): void {
  if (notice === 'none' || !side.conn) return;
  if (notice === 'hangup')
    send(vs, side.conn, 'hangup', {
      callsid: side.knowsSid ? side.sid : (side.tempSid ?? side.sid),
    });
  else send(vs, side.conn, 'hangup', { callsid: side.tempSid ?? side.sid, error: notice });
}

/** Hangs up and closes a side's leg, and counts its person as off the call. */
export function free(vs: VoiceState, side: Side): void {
  hangUpSide(vs, side, 'hangup');
  void side.leg?.close();
  setBusy(vs, side.identity!, -1);
}

export function sideNamed(call: Call, name: SideName): Side {
  return name === 'caller' ? call.caller : call.calleeSide;
}

export function setSide(call: Call, name: SideName, side: Side): void {
  if (name === 'caller') call.caller = side;
  else call.calleeSide = side;
}

/** A side in the call now (answered or parked), counted as on a call. */
const occupants = (call: Call): Side[] =>
  [call.caller, call.calleeSide].filter((s) => s.identity !== null);

export function stopRing(vs: VoiceState, call: Call, cancelForks: boolean): void {
  const ring = call.ring;
  if (!ring) return;
  call.ring = null;
  if (ring.timer) clearTimeout(ring.timer);
  if (cancelForks) for (const fork of ring.forks) send(vs, fork, 'cancel', { callsid: ring.sid });
  ring.forks.clear();
  void ring.leg.close();
}

export function endCall(
  vs: VoiceState,
  call: Call,
  outcome: Outcome,
  reason: string,
  notify: { caller?: Notice; callee?: Notice },
): void {
  if (call.state === 'ended') return;
  call.state = 'ended';
  for (const timer of call.lostTimers.values()) clearTimeout(timer);
  leavePark(vs, call);
  call.unbridge?.();
  stopRing(vs, call, true);
  const party = call.transfer?.party ?? null;
  call.transfer = null;
  if (party) free(vs, party);
  hangUpSide(vs, call.caller, notify.caller ?? 'hangup');
  hangUpSide(vs, call.calleeSide, notify.callee ?? 'none');
  void call.caller.leg?.close();
  void call.calleeSide.leg?.close();
  vs.calls.delete(call.id);
  const people = new Set<string>([call.from, ...(call.callee ? [call.callee] : [])]);
  for (const s of occupants(call)) people.add(s.identity!);
  for (const s of bySidsOf(vs, call)) {
    vs.bySid.delete(s);
    vs.ended.set(s, { people, at: vs.now(), callId: call.id });
  }
  // Everyone in the call counted as on a call: the caller from the invite, each other side from
  // its answer or pick-up.
  for (const s of occupants(call)) setBusy(vs, s.identity!, -1);
  recordEnd(vs, call, outcome, reason);
}

function bySidsOf(vs: VoiceState, call: Call): string[] {
  const out: string[] = [];
  for (const [s, c] of vs.bySid) if (c === call) out.push(s);
  return out;
}

/** The caller's audio could not be set up: the call ends, saying so. */
export function mediaFailed(vs: VoiceState, call: Call, err: unknown): void {
  vs.log(`voice: media for ${call.id} failed: ${err instanceof Error ? err.message : String(err)}`);
  endCall(vs, call, 'failed', 'The call could not be connected (media).', {
    caller: { code: 31000, message: 'The server could not set up audio for this call.' },
  });
}

/** A call `conn`'s person places (their SDK's id `tempSid`), registered and counted as on a call. */
export function newCall(
  vs: VoiceState,
  conn: Conn,
  tempSid: string,
  to: string,
  callee: string | null,
  startedAt: number,
): Call {
  const id = sid('CA');
  const caller = conn.identity!;
  const call: Call = {
    id,
    from: caller,
    to,
    callee,
    caller: {
      identity: caller,
      name: nameOf(vs, caller),
      conn,
      sid: id,
      tempSid,
      knowsSid: false,
      token: randomBytes(16).toString('hex'),
      leg: null,
    },
    calleeSide: vacant(),
    ring: null,
    unbridge: null,
    state: 'setting-up',
    heldBy: null,
    park: null,
    claimedBy: null,
    transfer: null,
    handledBy: null,
    trail: [],
    startedAt,
    answeredAt: null,
    lostTimers: new Map(),
    callerAnswered: false,
    route: null,
  };
  vs.calls.set(call.id, call);
  vs.bySid.set(call.id, call);
  vs.bySid.set(tempSid, call);
  setBusy(vs, caller, 1);
  noteProgress(vs, call);
  return call;
}

/** Bridges the two sides' audio. */
export function connect(call: Call): void {
  call.unbridge?.();
  call.unbridge = bridge(call.caller.leg!, call.calleeSide.leg!);
}

/**
 * `side`'s person leaves a call that goes on (a park, a transfer): their leg is hung up and closed,
 * they are free, and their ids stop naming the call (late frames from them are quiet).
 */
export function leave(vs: VoiceState, side: Side): void {
  free(vs, side);
  const sids = [side.sid, side.tempSid].filter((s): s is string => s !== null && s !== '');
  const callId = sids.map((s) => vs.bySid.get(s)?.id).find((id) => id !== undefined) ?? '';
  for (const s of sids) {
    vs.bySid.delete(s);
    vs.ended.set(s, { people: new Set([side.identity!]), at: vs.now(), callId });
  }
}

/** Which side of `call` this socket is on for `callsid`, a fork of its ring, or null. */
export function sideOf(
  call: Call,
  conn: Conn,
  callsid: string,
): SideName | 'ring' | 'party' | null {
  for (const name of ['caller', 'callee'] as const) {
    const side = sideNamed(call, name);
    if (side.conn === conn && (callsid === side.sid || callsid === side.tempSid)) return name;
  }
  if (call.ring && callsid === call.ring.sid && call.ring.forks.has(conn)) return 'ring';
  const party = call.transfer?.party;
  if (party && party.conn === conn && callsid === party.sid) return 'party';
  return null;
}

/** The call `identity` has as `callSid`, and their side of it; refused otherwise. */
export function ownCall(
  vs: VoiceState,
  identity: string,
  callSid: string,
): { call: Call; side: SideName } {
  const call = vs.bySid.get(callSid);
  if (call && call.state !== 'ended')
    for (const name of ['caller', 'callee'] as const) {
      const side = sideNamed(call, name);
      if (side.identity === identity && (side.sid === callSid || side.tempSid === callSid))
        return { call, side: name };
    }
  if (call && call.state !== 'ended')
    throw new CallControlError(403, 'not_your_call', 'This call is not yours.');
  throw new CallControlError(404, 'no_such_call', 'This call has ended.');
}

/** `notices` with nothing sent to `side` (the side that ended the call itself). */
export function except(
  notices: { caller: Notice; callee: Notice },
  side: SideName,
): { caller: Notice; callee: Notice } {
  return { ...notices, [side]: 'none' as const };
}

/** How to notify the sides when a call ends while parked: the waiting side hears a hangup. */
export function parkedEnd(call: Call): { caller: Notice; callee: Notice } {
  return {
    caller: call.caller.identity ? 'hangup' : 'none',
    callee: call.calleeSide.identity ? 'hangup' : 'none',
  };
}
