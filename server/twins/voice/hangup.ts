/**
 * A call's people going away: a hangup or a decline, a socket lost (the call waits for the SDK's
 * reconnect window), and a reconnecting SDK taking its side back.
 */
import { CODE_TEXT, type Conn, type SideName, type VoiceState } from './model';
import type { ClientMessage } from './protocol';
import { endCall, except, parkedEnd, sideNamed, sideOf, stopRing } from './calls';
import { ringUnanswered } from './ringing';
import { registeredSocketsOf, send, unknownCall } from './signalling';
import { complete, endConsult } from './transfer';

export function hangup(vs: VoiceState, conn: Conn, callsid: string, rejecting: boolean): void {
  const call = vs.bySid.get(callsid);
  const where = call ? sideOf(call, conn, callsid) : null;
  if (!call || !where) {
    unknownCall(vs, conn, callsid);
    return;
  }
  if (where === 'ring') {
    const ring = call.ring!;
    ring.forks.delete(conn);
    if (ring.people.length > 1 && rejecting) {
      // One member of a ring group declines: their other tabs stop, the others ring on.
      const person = ring.owners.get(conn);
      for (const fork of [...ring.forks])
        if (ring.owners.get(fork) === person) {
          ring.forks.delete(fork);
          send(vs, fork, 'cancel', { callsid: ring.sid });
        }
      if (ring.forks.size > 0) return;
    }
    // An unanswered fork going away (destroy) is not a decision by the person.
    if (!rejecting && ring.forks.size > 0) return;
    ringUnanswered(vs, call, ring, ring.purpose !== 'ringBack' || rejecting);
    return;
  }
  if (where === 'party') {
    endConsult(vs, call, `${call.transfer?.party?.name ?? 'They'} hung up.`);
    return;
  }
  const side = sideNamed(call, where);
  // Hanging up while consulting hands the call over (as on a desk phone), once the target is in.
  if (call.transfer?.mode === 'consult' && call.transfer.side === where) {
    if (call.transfer.party) {
      complete(vs, call);
      return;
    }
    if (call.ring?.purpose === 'consult') stopRing(vs, call, true);
    call.transfer = null;
  }
  if (call.state === 'setting-up' || call.state === 'ringing') {
    endCall(vs, call, 'abandoned', 'The caller hung up before an answer.', { caller: 'none' });
    return;
  }
  const who = side.identity === call.from && where === 'caller' ? 'The caller' : side.name;
  if (call.state === 'parked') {
    const what = call.park ? 'parked' : 'waiting to be taken';
    endCall(vs, call, 'answered', `${who} hung up while ${what}.`, except(parkedEnd(call), where));
    return;
  }
  endCall(vs, call, 'answered', `${who} hung up.`, {
    caller: where === 'caller' ? 'none' : 'hangup',
    callee: where === 'callee' ? 'none' : 'hangup',
  });
}

export function reconnectLeg(
  vs: VoiceState,
  conn: Conn,
  msg: Extract<ClientMessage, { type: 'invite' }>,
): void {
  const call = vs.bySid.get(msg.callsid);
  let found: SideName | 'ring' | null = null;
  if (call && call.state !== 'ended') {
    for (const name of ['caller', 'callee'] as const) {
      const side = sideNamed(call, name);
      if (
        side.identity === conn.identity &&
        msg.reconnect === side.token &&
        msg.callsid === side.sid
      )
        found = name;
    }
    if (
      !found &&
      call.ring &&
      msg.reconnect === call.ring.token &&
      msg.callsid === call.ring.sid &&
      conn.identity !== null &&
      call.ring.people.includes(conn.identity)
    )
      found = 'ring';
  }
  if (!call || !found) {
    send(vs, conn, 'hangup', {
      callsid: msg.callsid,
      error: { code: CODE_TEXT.reconnect, message: 'This call has ended.' },
    });
    return;
  }
  if (found === 'ring') {
    // A ringing callee's socket came back: it keeps ringing there.
    call.ring!.forks.add(conn);
    call.ring!.owners.set(conn, conn.identity!);
    return;
  }
  const timer = call.lostTimers.get(found);
  if (timer) clearTimeout(timer);
  call.lostTimers.delete(found);
  const side = sideNamed(call, found);
  side.conn = conn;
  send(vs, conn, 'answer', {
    callsid: side.sid,
    sdp: side.leg?.localSdp ?? '',
    reconnect: side.token,
  });
}

/** A socket went away: its calls end now, or after the SDK's reconnect window. */
export function socketLost(vs: VoiceState, conn: Conn, graceful: boolean): void {
  for (const call of [...vs.calls.values()]) {
    if (call.ring?.forks.has(conn)) {
      const ring = call.ring;
      ring.forks.delete(conn);
      const anyone = ring.people.some((p) => registeredSocketsOf(vs, p).length > 0);
      if (ring.forks.size === 0 && (!anyone || call.route?.ringing)) {
        if (ring.purpose === 'call' && call.route?.ringing) ringUnanswered(vs, call, ring);
        else if (ring.purpose === 'call') {
          const reason = `${ring.name} went offline.`;
          endCall(vs, call, 'missed', reason, {
            caller: { code: CODE_TEXT.offline, message: reason },
          });
        } else ringUnanswered(vs, call, ring);
      }
    }
    if (call.transfer?.party?.conn === conn) {
      call.transfer.party.conn = null;
      endConsult(vs, call, `${call.transfer.party.name} was disconnected.`);
    }
    for (const name of ['caller', 'callee'] as const) {
      const side = sideNamed(call, name);
      if (side.conn !== conn || call.state === 'ended') continue;
      side.conn = null;
      const who = name === 'caller' && side.identity === call.from ? 'The caller' : side.name;
      const end = () => {
        if (call.state === 'setting-up' || call.state === 'ringing')
          endCall(vs, call, 'abandoned', `${who} was disconnected.`, { caller: 'none' });
        else
          endCall(vs, call, 'answered', `${who} was disconnected.`, except(parkedEnd(call), name));
      };
      if (graceful || conn.reconnectTimeout === 0) end();
      else {
        const t = setTimeout(end, conn.reconnectTimeout * 1000);
        t.unref();
        call.lostTimers.set(name, t);
      }
    }
  }
}
