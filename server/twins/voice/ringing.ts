/**
 * Ringing: a call placed to a colleague, a ring on one side of a call (the first ring, a ring group's
 * members at once, a transfer's target, a ring-back), a ring nobody takes, and an answer.
 */
import { CALL_REASONS } from '../../../src/domain/calls/reasons';
import { CALL_PARAMETERS } from '../../../src/contracts/call-parameters';
import { randomBytes } from 'node:crypto';
import { TONES } from './audio';
import { answerLeg, offerLeg, type MediaLeg } from './media';
import {
  CODE_TEXT,
  other,
  PARK_PREFIX,
  sid,
  type Call,
  type Conn,
  type Ring,
  type Side,
  type SideName,
  type VoiceState,
} from './model';
import type { ClientMessage } from './protocol';
import {
  connect,
  endCall,
  mediaFailed,
  nameOf,
  newCall,
  parkedEnd,
  setSide,
  sideNamed,
  stopRing,
} from './calls';
import { addTrail, noteProgress, recordAttempt, setBusy } from './history';
import { leavePark, pickUp } from './hold';
import { answerCaller, note, placeGroupCall, runPlan } from './routing';
import { answeredStep, ringEndStep } from '../../../src/domain/routing/steps';
import {
  failBeforeRinging,
  registeredSocketsOf,
  send,
  sendError,
  tell,
  tellParties,
  unknownCall,
} from './signalling';
import { consultAnswered, ringTransfer, transferFailed } from './transfer';

export async function placeCall(
  vs: VoiceState,
  conn: Conn,
  msg: Extract<ClientMessage, { type: 'invite' }>,
): Promise<void> {
  const caller = conn.identity!;
  if (!conn.outgoing) {
    failBeforeRinging(
      vs,
      conn,
      msg.callsid,
      CODE_TEXT.forbidden,
      'This token may not place calls.',
    );
    return;
  }
  if (vs.bySid.has(msg.callsid)) {
    sendError(vs, conn, 31100, 'A call with this id already exists', { callsid: msg.callsid });
    return;
  }
  const to = (msg.params.get('To') ?? '').trim();
  if (to.startsWith(PARK_PREFIX)) {
    await pickUp(vs, conn, msg, to.slice(PARK_PREFIX.length));
    return;
  }
  const startedAt = vs.now();
  if (to === '') {
    failBeforeRinging(vs, conn, msg.callsid, CODE_TEXT.notFound, 'Nothing was dialled.');
    return;
  }
  const dest = vs.options.resolve(to, caller);
  if (dest.kind === 'unknown') {
    failBeforeRinging(vs, conn, msg.callsid, CODE_TEXT.notFound, dest.reason);
    recordAttempt(vs, { caller, to, startedAt }, 'failed', dest.reason, null);
    return;
  }
  if (dest.kind === 'group') {
    await placeGroupCall(vs, conn, msg, to, dest, startedAt);
    return;
  }
  const name = dest.name;
  if (dest.identity === caller) {
    failBeforeRinging(vs, conn, msg.callsid, CODE_TEXT.declined, CALL_REASONS.yourself);
    return;
  }
  const targets = registeredSocketsOf(vs, dest.identity);
  if (targets.length === 0) {
    const reason = CALL_REASONS.offline(name);
    failBeforeRinging(vs, conn, msg.callsid, CODE_TEXT.offline, reason);
    recordAttempt(vs, { caller, to, startedAt }, 'missed', reason, dest.identity);
    return;
  }
  if (vs.options.doNotDisturb?.(dest.identity)) {
    const reason = CALL_REASONS.doNotDisturb(name);
    failBeforeRinging(vs, conn, msg.callsid, CODE_TEXT.declined, reason);
    recordAttempt(vs, { caller, to, startedAt }, 'doNotDisturb', reason, dest.identity);
    return;
  }
  if ((vs.busyCount.get(dest.identity) ?? 0) > 0) {
    const reason = CALL_REASONS.busy(name);
    failBeforeRinging(vs, conn, msg.callsid, CODE_TEXT.busy, reason);
    recordAttempt(vs, { caller, to, startedAt }, 'busy', reason, dest.identity);
    return;
  }

  const call = newCall(vs, conn, msg.callsid, to, dest.identity, startedAt);

  let callerLeg: MediaLeg;
  let calleeLeg: MediaLeg;
  try {
    [callerLeg, calleeLeg] = await Promise.all([
      answerLeg(msg.sdp, vs.options.media),
      offerLeg(vs.options.media),
    ]);
  } catch (err) {
    mediaFailed(vs, call, err);
    return;
  }
  if (call.state === 'ended') {
    void callerLeg.close();
    void calleeLeg.close();
    return;
  }
  call.caller.leg = callerLeg;
  // Early media: the caller's audio connects now and hears ringback until the callee answers.
  send(vs, conn, 'ringing', { callsid: call.id, sdp: callerLeg.localSdp });
  call.caller.knowsSid = true;
  callerLeg.play(TONES.ringback);
  if (registeredSocketsOf(vs, dest.identity).length === 0) {
    void calleeLeg.close();
    endCall(vs, call, 'missed', CALL_REASONS.offline(name), {
      caller: { code: CODE_TEXT.offline, message: CALL_REASONS.offline(name) },
    });
    return;
  }
  call.state = 'ringing';
  const started = startRing(vs, call, 'callee', 'call', dest.identity, name, calleeLeg, caller);
  if (!started) {
    endCall(vs, call, 'missed', CALL_REASONS.offline(name), {
      caller: { code: CODE_TEXT.offline, message: CALL_REASONS.offline(name) },
    });
  }
}

/**
 * Rings `identity` on `side` of the call with `leg` (offered to them), as a call from `fromIdentity`.
 * False when they have no phone to ring.
 */
export function startRing(
  vs: VoiceState,
  call: Call,
  side: SideName,
  purpose: Ring['purpose'],
  identity: string | readonly string[],
  name: string,
  leg: MediaLeg,
  fromIdentity: string,
  extra: { timeoutMs?: number; params?: Record<string, string> } = {},
): boolean {
  const people = typeof identity === 'string' ? [identity] : [...identity];
  const owners = new Map<Conn, string>();
  for (const person of people)
    for (const conn of registeredSocketsOf(vs, person)) owners.set(conn, person);
  const targets = [...owners.keys()];
  if (targets.length === 0) {
    void leg.close();
    return false;
  }
  const ring: Ring = {
    side,
    purpose,
    identity: people[0]!,
    name,
    people,
    owners,
    sid: sid('CA'),
    token: randomBytes(16).toString('hex'),
    leg,
    forks: new Set(targets),
    timer: null,
  };
  call.ring = ring;
  vs.bySid.set(ring.sid, call);
  const parameters = {
    CallSid: ring.sid,
    AccountSid: 'AC00000000000000000000000000000000',
    From: `client:${fromIdentity}`,
    ApiVersion: '2010-04-01',
    Params: new URLSearchParams({
      [CALL_PARAMETERS.callerIdentity]: fromIdentity,
      [CALL_PARAMETERS.callerName]: nameOf(vs, fromIdentity),
      ...(purpose === 'ringBack' ? { [CALL_PARAMETERS.ringBack]: '1' } : {}),
      ...extra.params,
    }).toString(),
  };
  for (const target of targets)
    send(vs, target, 'invite', {
      callsid: ring.sid,
      sdp: leg.localSdp,
      parameters: { ...parameters, To: `client:${owners.get(target)!}` },
      reconnect: ring.token,
    });
  ring.timer = setTimeout(
    () => ringUnanswered(vs, call, ring),
    extra.timeoutMs ?? vs.ringTimeoutMs,
  );
  ring.timer.unref();
  return true;
}

/** A ring nobody answered in time (or everybody declined): the call ends with why. */
export function ringUnanswered(vs: VoiceState, call: Call, ring: Ring, declined = false): void {
  if (call.ring !== ring) return;
  const plan = call.route?.ringing;
  if (ring.purpose === 'call' && plan) {
    // A ring group's ring: the engine said where the call goes next.
    stopRing(vs, call, true);
    call.route!.ringing = null;
    note(vs, call, ringEndStep(declined, plan.seconds));
    void runPlan(vs, call, declined ? plan.onBusy : plan.onNoAnswer);
    return;
  }
  if (ring.purpose === 'call') {
    const reason = declined ? CALL_REASONS.declined(ring.name) : CALL_REASONS.noAnswer(ring.name);
    endCall(vs, call, declined ? 'rejected' : 'missed', reason, {
      caller: { code: declined ? CODE_TEXT.declined : CODE_TEXT.noAnswer, message: reason },
    });
    return;
  }
  const why = declined ? `${ring.name} declined` : `${ring.name} did not answer`;
  if ((ring.purpose === 'consult' || ring.purpose === 'transfer') && call.transfer) {
    // A group's next member in order, else the transfer comes back to whoever sent it.
    const t = call.transfer;
    stopRing(vs, call, true);
    if (t.turns.length > 0) ringTransfer(vs, call, t);
    else transferFailed(vs, call, t, ring.purpose === 'consult' ? why : `${why} the transfer`);
    return;
  }
  // A call rung back after a park or a transfer, and nobody took it: it does not wait for ever.
  endCall(vs, call, 'answered', `Nobody took the call back: ${why}.`, parkedEnd(call));
}

/**
 * Rings `identity` on the vacant `side` with the call (a park timed out, a transfer nobody took);
 * the call ends when they are offline or busy.
 */
export function ringBack(
  vs: VoiceState,
  call: Call,
  side: SideName,
  identity: string,
  name: string,
  why: string,
): void {
  const waiting = sideNamed(call, other(side));
  const unavailable = (reason: string) =>
    endCall(vs, call, 'answered', `${why}, and ${reason}.`, parkedEnd(call));
  if ((vs.busyCount.get(identity) ?? 0) > 0) {
    unavailable(`${name} was on another call`);
    return;
  }
  offerLeg(vs.options.media).then(
    (leg) => {
      if (call.state !== 'parked') {
        void leg.close();
        return;
      }
      const from = waiting.identity ?? call.from;
      // The reason rides along so the card can say why this call rings again.
      const params = { [CALL_PARAMETERS.ringBackReason]: why };
      if (!startRing(vs, call, side, 'ringBack', identity, name, leg, from, { params }))
        unavailable(`${name} was offline`);
    },
    (err: unknown) => {
      vs.log(`voice: ringing back ${call.id} failed: ${String(err)}`);
      unavailable('the call could not ring back');
    },
  );
}

export async function answerCall(
  vs: VoiceState,
  conn: Conn,
  msg: Extract<ClientMessage, { type: 'answer' }>,
): Promise<void> {
  const call = vs.bySid.get(msg.callsid);
  const ring = call?.ring;
  if (!call || !ring || ring.sid !== msg.callsid || !ring.forks.has(conn)) {
    unknownCall(vs, conn, msg.callsid);
    return;
  }
  // The ring is over: other tabs stop ringing, and its leg now belongs to the side.
  call.ring = null;
  if (ring.timer) clearTimeout(ring.timer);
  for (const fork of ring.forks) if (fork !== conn) send(vs, fork, 'cancel', { callsid: ring.sid });
  ring.forks.clear();
  if (ring.purpose === 'consult') {
    await consultAnswered(vs, call, ring, conn, msg.sdp);
    return;
  }
  const side = answeredSide(vs, ring, conn);
  setSide(call, ring.side, side);
  setBusy(vs, side.identity!, 1);
  if (ring.purpose === 'call') call.state = 'answered';
  try {
    await ring.leg.accept(msg.sdp);
  } catch (err) {
    vs.log(
      `voice: answer for ${call.id} refused: ${err instanceof Error ? err.message : String(err)}`,
    );
    endCall(
      vs,
      call,
      ring.purpose === 'call' ? 'failed' : 'answered',
      'The call could not be connected (answer refused).',
      ring.purpose === 'call'
        ? {
            caller: { code: 31000, message: 'The call could not be connected.' },
            callee: 'hangup',
          }
        : parkedEnd(call),
    );
    return;
  }
  if (call.state === 'ended') return;
  if (ring.purpose === 'call') {
    call.answeredAt = vs.now();
    call.handledBy = side.identity;
    connect(call);
    if (call.route) {
      call.callee = side.identity;
      call.route.ringing = null;
      note(vs, call, answeredStep(side.name));
    } else noteProgress(vs, call);
    answerCaller(vs, call);
    if (call.route) tellParties(vs, call);
    return;
  }
  // A call rung back (after a park or an unanswered transfer), or a blind transfer's target: taken.
  leavePark(vs, call);
  call.handledBy = side.identity;
  if (ring.purpose === 'transfer' && call.transfer)
    addTrail(vs, call, {
      action: 'transferred',
      by: call.transfer.by,
      to: side.identity!,
      at: vs.now(),
    });
  else addTrail(vs, call, { action: 'rangBack', by: side.identity!, at: vs.now() });
  call.transfer = null;
  call.state = 'answered';
  connect(call);
  tell(vs, sideNamed(call, other(ring.side)), { event: 'resumed', by: side.name });
  tellParties(vs, call);
}

/** The side a ring becomes once `conn` answers it. */
export function answeredSide(vs: VoiceState, ring: Ring, conn: Conn): Side {
  const identity = ring.owners.get(conn) ?? ring.identity;
  return {
    identity,
    name: ring.people.length === 1 ? ring.name : nameOf(vs, identity),
    conn,
    sid: ring.sid,
    tempSid: null,
    knowsSid: true,
    token: ring.token,
    leg: ring.leg,
  };
}
