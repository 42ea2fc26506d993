/**
 * Transfers: blind (the transferrer leaves, the target rings on their side, and the call comes back
 * if nobody takes it), attended (the transferrer talks to the target first, then completes or
 * cancels), to a colleague or a ring group's members.
 */
import { CALL_REASONS } from '../../../src/domain/calls/reasons';
import { CALL_PARAMETERS } from '../../../src/contracts/call-parameters';
import { TONES } from './audio';
import { bridge, offerLeg } from './media';
import {
  CallControlError,
  other,
  vacant,
  type Call,
  type Conn,
  type Destination,
  type Ring,
  type Transfer,
  type TransferTurn,
  type VoiceState,
} from './model';
import {
  connect,
  free,
  hangUpSide,
  leave,
  nameOf,
  ownCall,
  setSide,
  sideNamed,
  stopRing,
} from './calls';
import { addTrail, setBusy } from './history';
import { answeredSide, ringBack, startRing } from './ringing';
import { waitingSound } from './routing';
import { registeredSocketsOf, tell, tellParties } from './signalling';

export function transfer(
  vs: VoiceState,
  identity: string,
  callSid: string,
  to: string,
  mode: 'blind' | 'consult',
): void {
  const { call, side } = ownCall(vs, identity, callSid);
  if (call.state !== 'answered')
    throw new CallControlError(409, 'not_answered', 'Only a call in progress can be transferred.');
  if (call.transfer)
    throw new CallControlError(409, 'transfer_in_progress', 'A transfer is already under way.');
  if (call.heldBy !== null && call.heldBy !== side)
    throw new CallControlError(
      409,
      'held_by_them',
      'The other side has put this call on hold; it can be transferred once they resume it.',
    );
  const target = to.trim();
  if (target === '')
    throw new CallControlError(400, 'bad_request', 'Say who to transfer the call to.');
  const dest = vs.options.resolve(target, identity);
  if (dest.kind === 'unknown') throw new CallControlError(404, 'not_found', dest.reason);
  const waiting = sideNamed(call, other(side));
  let turns: TransferTurn[];
  if (dest.kind === 'group') turns = groupTurns(vs, dest, identity, waiting.identity);
  else {
    if (dest.identity === identity)
      throw new CallControlError(400, 'bad_request', 'You cannot transfer a call to yourself.');
    if (dest.identity === waiting.identity)
      throw new CallControlError(400, 'bad_request', `${dest.name} is already on this call.`);
    if (registeredSocketsOf(vs, dest.identity).length === 0)
      throw new CallControlError(409, 'unavailable', CALL_REASONS.offline(dest.name));
    if (vs.options.doNotDisturb?.(dest.identity))
      throw new CallControlError(409, 'unavailable', CALL_REASONS.doNotDisturb(dest.name));
    if ((vs.busyCount.get(dest.identity) ?? 0) > 0)
      throw new CallControlError(409, 'unavailable', CALL_REASONS.busy(dest.name));
    turns = [{ identities: [dest.identity] }];
  }
  const me = sideNamed(call, side);
  const t: Transfer = {
    mode,
    side,
    by: identity,
    byName: me.name,
    from: mode === 'consult' ? identity : (waiting.identity ?? call.from),
    targetName: dest.name,
    groupId: dest.kind === 'group' ? dest.groupId : null,
    turns,
    party: null,
  };
  call.transfer = t;
  call.unbridge?.();
  call.unbridge = null;
  call.heldBy = null;
  waiting.leg?.play(waitingSound(vs, call));
  tell(vs, waiting, { event: 'held', by: me.name });
  if (mode === 'consult') {
    // We hear ringback on our own leg until they answer.
    me.leg?.play(TONES.ringback);
  } else {
    // Blind: we leave now; the call rings them on our side, and comes back to us if unanswered.
    leave(vs, me);
    setSide(call, side, vacant());
    call.state = 'parked';
  }
  ringTransfer(vs, call, t);
}

/**
 * Who a transfer to a ring group rings, turn by turn: its members who can take a call now, but
 * neither the transferrer nor the person waiting. Refused when that is nobody.
 */
function groupTurns(
  vs: VoiceState,
  dest: Extract<Destination, { kind: 'group' }>,
  identity: string,
  waiting: string | null,
): TransferTurn[] {
  if (dest.test)
    throw new CallControlError(400, 'bad_request', 'A test call cannot take a transfer.');
  const leaveOut = waiting === null ? [identity] : [identity, waiting];
  const found = vs.options.groupTransfer?.(dest.groupId, leaveOut);
  if (!found)
    throw new CallControlError(
      409,
      'unavailable',
      `Calls cannot be transferred to ${dest.name} here; transfer to one of its members.`,
    );
  if (found.turns.length === 0) {
    const why = found.skipped.length > 0 ? ` (${found.skipped.join(', ')})` : '';
    throw new CallControlError(
      409,
      'unavailable',
      `Nobody else in ${dest.name} can take the call now${why}.`,
    );
  }
  return found.turns.map((turn) => ({
    identities: turn.identities,
    timeoutMs: turn.seconds * 1000,
  }));
}

/** Whether `t` is still the call's transfer, at the stage its next ring can start. */
const transferGoesOn = (call: Call, t: Transfer): boolean =>
  call.transfer === t && call.state === (t.mode === 'consult' ? 'answered' : 'parked');

/** Rings the transfer's next turn (a group's member in order, or everyone at once). */
export function ringTransfer(vs: VoiceState, call: Call, t: Transfer): void {
  const turn = t.turns.shift();
  if (!turn) {
    transferFailed(vs, call, t, `Nobody in ${t.targetName} could take the call`);
    return;
  }
  const name =
    t.groupId !== null && turn.identities.length === 1
      ? nameOf(vs, turn.identities[0]!)
      : t.targetName;
  offerLeg(vs.options.media).then(
    (leg) => {
      if (!transferGoesOn(call, t)) {
        void leg.close();
        return;
      }
      const purpose = t.mode === 'consult' ? 'consult' : 'transfer';
      const extra = {
        ...(turn.timeoutMs !== undefined ? { timeoutMs: turn.timeoutMs } : {}),
        ...(t.groupId !== null
          ? {
              params: {
                [CALL_PARAMETERS.group]: t.targetName,
                [CALL_PARAMETERS.groupId]: t.groupId,
              },
            }
          : {}),
      };
      if (startRing(vs, call, t.side, purpose, turn.identities, name, leg, t.from, extra)) return;
      if (t.turns.length > 0) ringTransfer(vs, call, t);
      else transferFailed(vs, call, t, `${name} went offline`);
    },
    (err: unknown) => {
      vs.log(`voice: transfer of ${call.id} failed: ${String(err)}`);
      transferFailed(
        vs,
        call,
        t,
        t.mode === 'consult'
          ? `The call to ${name} could not be set up`
          : 'The transfer could not be set up',
      );
    },
  );
}

/** Nobody took the transfer: an attended one goes back to the call, a blind one rings its sender. */
export function transferFailed(vs: VoiceState, call: Call, t: Transfer, why: string): void {
  if (call.transfer !== t) return;
  if (t.mode === 'consult') {
    endConsult(vs, call, `${why}.`);
    return;
  }
  call.transfer = null;
  ringBack(vs, call, t.side, t.by, t.byName, why);
}

/** Hands a consulted call over: the target takes the transferrer's side, who leaves. */
export function complete(vs: VoiceState, call: Call): void {
  const t = call.transfer;
  if (!t || !t.party) return;
  const leaving = sideNamed(call, t.side);
  const party = t.party;
  call.transfer = null;
  call.unbridge?.();
  call.unbridge = null;
  leave(vs, leaving);
  setSide(call, t.side, party);
  vs.bySid.set(party.sid, call);
  call.handledBy = party.identity;
  addTrail(vs, call, { action: 'transferred', by: t.by, to: party.identity!, at: vs.now() });
  connect(call);
  tell(vs, sideNamed(call, other(t.side)), { event: 'resumed', by: party.name });
  tellParties(vs, call);
}

function consultOf(vs: VoiceState, identity: string, callSid: string) {
  const { call, side } = ownCall(vs, identity, callSid);
  const t = call.transfer;
  if (!t || t.side !== side || t.mode !== 'consult')
    throw new CallControlError(409, 'no_transfer', 'There is no transfer under way on this call.');
  return { call, t };
}

export function completeTransfer(vs: VoiceState, identity: string, callSid: string): void {
  const { call, t } = consultOf(vs, identity, callSid);
  if (!t.party)
    throw new CallControlError(
      409,
      'no_transfer',
      `${t.targetName} has not answered yet: wait, or cancel the transfer.`,
    );
  complete(vs, call);
}

export function cancelTransfer(vs: VoiceState, identity: string, callSid: string): void {
  const { call, t } = consultOf(vs, identity, callSid);
  endConsult(vs, call, `You cancelled the transfer to ${t.targetName}.`);
}

/** An attended transfer that did not happen: the transferrer talks to the other party again. */
export function endConsult(vs: VoiceState, call: Call, reason: string): void {
  const t = call.transfer;
  if (!t || call.state !== 'answered') return;
  if (call.ring?.purpose === 'consult') stopRing(vs, call, true);
  call.transfer = null;
  if (t.party) free(vs, t.party);
  call.heldBy = null;
  connect(call);
  tell(vs, sideNamed(call, t.side), { event: 'consultEnded', reason });
  tell(vs, sideNamed(call, other(t.side)), { event: 'resumed', by: t.byName });
}

/** An attended transfer's target answered: the transferrer talks to them, the other side waits. */
export async function consultAnswered(
  vs: VoiceState,
  call: Call,
  ring: Ring,
  conn: Conn,
  sdp: string,
): Promise<void> {
  const t = call.transfer;
  const party = answeredSide(vs, ring, conn);
  if (!t) {
    hangUpSide(vs, party, 'hangup');
    void ring.leg.close();
    return;
  }
  t.party = party;
  setBusy(vs, party.identity!, 1);
  try {
    await ring.leg.accept(sdp);
  } catch (err) {
    vs.log(`voice: consult answer for ${call.id} refused: ${String(err)}`);
    endConsult(vs, call, `The call to ${party.name} could not be connected.`);
    return;
  }
  if (call.transfer !== t || call.state !== 'answered') return;
  const mine = sideNamed(call, t.side);
  call.unbridge?.();
  call.unbridge = bridge(mine.leg!, ring.leg);
  tell(vs, mine, { event: 'consultAnswered', name: party.name });
}
