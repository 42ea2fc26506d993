/**
 * Hold and the park: holding and resuming a call, parking it for anyone to pick up (/hold), a pick-up
 * (exactly one picker wins), and a call parked too long ringing back whoever parked it.
 */
import { randomBytes } from 'node:crypto';
import { answerLeg, type MediaLeg } from './media';
import {
  CallControlError,
  CODE_TEXT,
  GONE_SENTENCE,
  other,
  sid,
  TAKEN_SENTENCE,
  vacant,
  type Call,
  type Conn,
  type ParkedCall,
  type Side,
  type SideName,
  type VoiceState,
} from './model';
import type { ClientMessage } from './protocol';
import { connect, leave, nameOf, ownCall, setSide, sideNamed, stopRing } from './calls';
import { addTrail, setBusy } from './history';
import { ringBack } from './ringing';
import { waitingSound } from './routing';
import { failBeforeRinging, send, tell, tellParties } from './signalling';

/** `identity`'s call in progress with no transfer under way, for a hold or a park; refused otherwise. */
function inProgress(
  vs: VoiceState,
  identity: string,
  callSid: string,
  what: string,
): { call: Call; side: SideName } {
  const found = ownCall(vs, identity, callSid);
  if (found.call.transfer)
    throw new CallControlError(
      409,
      'transfer_in_progress',
      'A transfer is under way: complete or cancel it first.',
    );
  if (found.call.state !== 'answered')
    throw new CallControlError(409, 'not_answered', `Only a call in progress can be ${what}.`);
  return found;
}

export function hold(vs: VoiceState, identity: string, callSid: string, on: boolean): void {
  const { call, side } = inProgress(vs, identity, callSid, 'put on hold');
  if (on) {
    if (call.heldBy === side) return;
    if (call.heldBy !== null)
      throw new CallControlError(
        409,
        'held_by_them',
        'The other side has put this call on hold; it can be held once they resume it.',
      );
    call.unbridge?.();
    call.unbridge = null;
    call.heldBy = side;
    sideNamed(call, other(side)).leg?.play(waitingSound(vs, call));
    sideNamed(call, side).leg?.play(null);
    addTrail(vs, call, { action: 'held', by: identity, at: vs.now() });
    tell(vs, sideNamed(call, other(side)), { event: 'held', by: sideNamed(call, side).name });
    return;
  }
  if (call.heldBy === null) return;
  if (call.heldBy !== side)
    throw new CallControlError(
      409,
      'held_by_them',
      'The other side put this call on hold; only they can resume it.',
    );
  call.heldBy = null;
  connect(call);
  addTrail(vs, call, { action: 'resumed', by: identity, at: vs.now() });
  tell(vs, sideNamed(call, other(side)), { event: 'resumed', by: sideNamed(call, side).name });
}

export function park(vs: VoiceState, identity: string, callSid: string): ParkedCall {
  const { call, side } = inProgress(vs, identity, callSid, 'parked');
  if (call.heldBy !== null && call.heldBy !== side)
    throw new CallControlError(
      409,
      'held_by_them',
      'The other side has put this call on hold; it can be parked once they resume it.',
    );
  const parker = sideNamed(call, side);
  const waiting = sideNamed(call, other(side));
  call.unbridge?.();
  call.unbridge = null;
  call.heldBy = null;
  waiting.leg?.play(waitingSound(vs, call));
  // The parker's phone is free at once: their leg ends, the waiting side stays with the music.
  leave(vs, parker);
  setSide(call, side, vacant());
  call.state = 'parked';
  const at = vs.now();
  const timer = setTimeout(() => parkTimedOut(vs, call, identity, parker.name), vs.parkTimeoutMs);
  timer.unref();
  call.park = { side, by: identity, at, timer };
  // Parked again after a pick-up: that pick-up no longer says who has the call.
  vs.pickedUp.delete(call.id);
  addTrail(vs, call, { action: 'parked', by: identity, at });
  tell(vs, waiting, { event: 'held', by: parker.name });
  const entry: ParkedCall = {
    callId: call.id,
    caller: waiting.name,
    parkedBy: identity,
    parkedAt: at,
  };
  vs.options.onParked?.(entry);
  return entry;
}

/** Parked too long: the call leaves /hold and rings the person who parked it. */
function parkTimedOut(
  vs: VoiceState,
  call: Call,
  parkerIdentity: string,
  parkerName: string,
): void {
  if (call.state !== 'parked' || !call.park || call.claimedBy !== null) return;
  const side = call.park.side;
  leavePark(vs, call);
  ringBack(vs, call, side, parkerIdentity, parkerName, 'The call was parked too long');
}

export function leavePark(vs: VoiceState, call: Call): void {
  if (!call.park) return;
  if (call.park.timer) clearTimeout(call.park.timer);
  call.park = null;
  vs.options.onUnparked?.(call.id);
}

/**
 * Why a pick-up of `callId` is refused. A claim in progress answers first: whoever loses a race is
 * told a colleague took the call, whatever the record of an earlier pick-up says (the call may
 * have been picked up and parked again since).
 */
function refusal(vs: VoiceState, call: Call | undefined, callId: string, picker: string): string {
  const mine = 'You already picked up this call.';
  if (call && call.claimedBy !== null) return call.claimedBy === picker ? mine : TAKEN_SENTENCE;
  const taken = vs.pickedUp.get(callId);
  if (taken) return taken.by === picker ? mine : TAKEN_SENTENCE;
  if (call && call.state === 'parked') return 'This call is ringing back to whoever parked it.';
  return call ? 'This call is no longer on hold.' : GONE_SENTENCE;
}

/** `conn` dialled `park:<callId>`: the first such dial takes the parked call, any later one is told. */
export async function pickUp(
  vs: VoiceState,
  conn: Conn,
  msg: Extract<ClientMessage, { type: 'invite' }>,
  callId: string,
): Promise<void> {
  const picker = conn.identity!;
  const call = vs.calls.get(callId);
  if (!call || call.state !== 'parked' || call.claimedBy !== null || !call.park) {
    failBeforeRinging(vs, conn, msg.callsid, CODE_TEXT.notFound, refusal(vs, call, callId, picker));
    return;
  }
  if ((vs.busyCount.get(picker) ?? 0) > 0) {
    failBeforeRinging(
      vs,
      conn,
      msg.callsid,
      CODE_TEXT.busy,
      'Finish or park your own call before picking up another.',
    );
    return;
  }
  call.claimedBy = picker;
  const vacated = call.park.side;
  let leg: MediaLeg;
  try {
    leg = await answerLeg(msg.sdp, vs.options.media);
  } catch (err) {
    call.claimedBy = null;
    vs.log(`voice: media for a pick-up of ${call.id} failed: ${String(err)}`);
    failBeforeRinging(
      vs,
      conn,
      msg.callsid,
      31000,
      'The server could not set up audio for this call.',
    );
    return;
  }
  if (call.state !== 'parked' || conn.closed) {
    void leg.close();
    call.claimedBy = null;
    failBeforeRinging(vs, conn, msg.callsid, CODE_TEXT.notFound, GONE_SENTENCE);
    return;
  }
  const side: Side = {
    identity: picker,
    name: nameOf(vs, picker),
    conn,
    sid: sid('CA'),
    tempSid: msg.callsid,
    knowsSid: true,
    token: randomBytes(16).toString('hex'),
    leg,
  };
  setSide(call, vacated, side);
  vs.bySid.set(side.sid, call);
  vs.bySid.set(msg.callsid, call);
  call.claimedBy = null;
  stopRing(vs, call, true);
  leavePark(vs, call);
  vs.pickedUp.set(call.id, { by: picker, at: vs.now() });
  call.handledBy = picker;
  addTrail(vs, call, { action: 'pickedUp', by: picker, at: vs.now() });
  call.state = 'answered';
  setBusy(vs, picker, 1);
  connect(call);
  send(vs, conn, 'answer', { callsid: side.sid, sdp: leg.localSdp, reconnect: side.token });
  tell(vs, sideNamed(call, other(vacated)), { event: 'resumed', by: side.name });
  tellParties(vs, call);
}
