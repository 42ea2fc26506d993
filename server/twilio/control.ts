/**
 * Hold, resume, park, pick-up, ring-back and blind transfer of a live call on Twilio, written against
 * Twilio's Voice API only: a call is changed by giving one of its legs new TwiML (the Call resource's
 * update, https://www.twilio.com/docs/voice/api/call-resource#update-a-call-resource), and two legs
 * that must stay apart or together meet in a conference
 * (https://www.twilio.com/docs/voice/twiml/conference, Participant `Hold` with `HoldUrl`:
 * https://www.twilio.com/docs/voice/api/conference-participant-resource#update-a-participant-resource).
 * On this machine the same requests reach the voice twin (server/twins/voice/twiml/).
 *
 * A call answered through `<Dial><Client>` is a parent leg bridged to its child. Changing the parent
 * hangs the child up; so the first change moves the child first (its new TwiML), which ends the
 * parent's `<Dial>`: Twilio then asks the `<Dial>`'s action URL (/api/twilio/voice/next), which
 * answers with the TwiML kept here for the parent ({@link CallControl.pendingFor}).
 *
 * - Hold: both legs enter one conference that does not start (`startConferenceOnEnter="false"`):
 *   each hears its own `waitUrl`, the held side music, the holder silence. Resume moves the holder
 *   in again with `startConferenceOnEnter="true"`: the conference starts and they talk. Later holds
 *   in that conference are the held participant's `Hold` with the music as `HoldUrl`.
 * - Park: the waiting side alone in a conference named after its leg, hearing the music; the parker's
 *   leg ends. The `holds` item is written for /hold. Pick-up: the picker's browser dials
 *   `park:<leg>`; the first picker's call joins that conference (starting it), every later one is
 *   refused with the reason. A park that lasts too long rings the parker back (`<Dial><Client>`).
 * - Blind transfer: the waiting side's leg dials the target; nobody answering rings the transferrer
 *   back, with the reason.
 *
 * One history row per call: the first call's row waits until the last of its legs has ended, and
 * carries the trail (held, resumed, parked, picked up, rang back, transferred).
 *
 * State is in this process (as the embedded backend's is): Twilio's requests for one call must reach
 * this server. Not carried yet: the attended transfer and transfers to a ring group (refused with a
 * sentence), a group's own hold audio (the built-in music plays).
 */
import { randomBytes } from 'node:crypto';
import { CALL_REASONS } from '../../src/domain/calls/reasons';
import { CALL_PARAMETERS } from '../../src/contracts/call-parameters';
import { HOLDS } from '../../src/contracts/objects';
import { TWILIO_PATHS } from '../../src/contracts/api';
import { voiceIdentityOf } from '../../src/contracts/voice-identity';
import type { User } from '../identity/users';
import { CallControlError, GONE_SENTENCE, TAKEN_SENTENCE } from '../twins/voice/model';
import { resolveDestination } from '../voice/directory';
import type { CallLog, CallState } from './calls';
import { createLiveCalls, type Live, type Side } from './live-calls';
import type { TwilioClient } from './client';
import type { SyncRest } from './sync-rest';
import { Twiml } from './twiml-writer';
import { dialSeconds } from './twiml';

/** Twilio's own hold music, as its documentation's examples use it; the twin plays its built-in music. */
export const HOLD_MUSIC = 'http://com.twilio.music.classical.s3.amazonaws.com/BusyStrings.mp3';

/** A parked call as /hold lists it (the `holds` item and its key). */
export interface ParkedOnTwilio {
  callId: string;
  caller: string;
  parkedBy: string;
  parkedAt: number;
}

export interface CallControlDeps {
  client: TwilioClient;
  calls: CallLog;
  rest: SyncRest;
  publicUrl: string;
  team: () => readonly User[];
  nameOf: (identity: string) => string;
  /** Whether a colleague can be rung now ('offline', 'doNotDisturb' or 'available'). */
  availability: (identity: string) => Promise<string>;
  tell: (callSid: string, content: Record<string, unknown>) => void;
  /** Writes the first call's row (all its legs have ended). */
  finish: (state: CallState) => void;
  parkTimeoutMs: number;
  ringSeconds: number;
  now: () => number;
  log: (message: string) => void;
}

export interface CallControl {
  hold(identity: string, callSid: string, on: boolean): Promise<void>;
  park(identity: string, callSid: string): Promise<ParkedOnTwilio>;
  transfer(identity: string, callSid: string, to: string, mode: 'blind' | 'consult'): Promise<void>;
  completeTransfer(identity: string, callSid: string): Promise<void>;
  cancelTransfer(identity: string, callSid: string): Promise<void>;
  /** A `<Dial><Client>` leg answered: a new call's two sides, or who took a ring-back or transfer. */
  answered(parentSid: string, legSid: string, identity: string): void;
  /** A leg ended; true when its call goes on (its row must wait). */
  ended(callSid: string): boolean;
  /** TwiML kept for a parent leg whose child was moved, once. */
  pendingFor(callSid: string): string | null;
  /** `picker` dialled `park:<callId>` as `pickerSid`: the TwiML that joins the call, or a refusal. */
  pickUp(
    pickerSid: string,
    picker: string,
    callId: string,
  ): { twiml: string } | { refused: string };
  /** The answer to a ring-back's or transfer's `<Dial>` action. */
  afterRing(callSid: string, dialStatus: string): string;
  /** Whether `callSid` is a leg of another call (a pick-up): no row of its own. */
  joined(callSid: string): boolean;
  /** The first call's sid of the call `callSid` is a leg of (the row's), or null. */
  callOf(callSid: string): string | null;
}

/** `<Dial><Conference>` with the attributes given (`beep` off: nobody hears tones on a move). */
function conference(
  room: string,
  attrs: { start: boolean; endOnExit: boolean; waitUrl?: string },
): string {
  return new Twiml()
    .dial({}, [
      {
        conference: room,
        attrs: {
          startConferenceOnEnter: attrs.start,
          endConferenceOnExit: attrs.endOnExit,
          beep: false,
          ...(attrs.waitUrl === undefined ? {} : { waitUrl: attrs.waitUrl }),
        },
      },
    ])
    .toString();
}

const HANG_UP = new Twiml().hangup().toString();
const PICKED_MINE = 'You already picked up this call.';

export function createCallControl(deps: CallControlDeps): CallControl {
  const { client, calls, now, log } = deps;
  /** Pick-ups that happened, by the parked leg, for an hour: who took it. */
  const pickedUp = new Map<string, { by: string; at: number }>();
  const legs = createLiveCalls({
    calls,
    nameOf: deps.nameOf,
    tell: deps.tell,
    finish: deps.finish,
    now,
    unpark: (live) => unpark(live),
    hangUp: (callSid) => hangUp(callSid),
  });
  const { bySid, own, talking, serial, trail, stateOf, tellHeld, party } = legs;
  let holdsReady: Promise<void> | null = null;
  const url = (path: string, query: Record<string, string> = {}): string => {
    const q = new URLSearchParams(query).toString();
    return `${deps.publicUrl}${path}${q ? `?${q}` : ''}`;
  };

  async function redirect(callSid: string, twiml: string): Promise<void> {
    const live = bySid.get(callSid);
    if (live) live.moved = true;
    try {
      await client.calls(callSid).update({ twiml });
    } catch (err) {
      log(
        `call ${callSid}: the change was refused: ${err instanceof Error ? err.message : String(err)}`,
      );
      throw new CallControlError(409, 'no_such_call', 'That call has ended.');
    }
  }

  const hangUp = (callSid: string): void =>
    void client
      .calls(callSid)
      .update({ status: 'completed' })
      .catch(() => undefined);

  /**
   * Gives `mover` new TwiML and lets `leaver` go: a parent moved hangs its child up; a child moved
   * ends its parent's `<Dial>`, whose action then hangs the parent up; in a conference the leaver
   * is hung up here.
   */
  async function moveAway(live: Live, mover: Side, leaver: Side, twiml: string): Promise<void> {
    if (live.parent !== null && live.parent !== mover.sid) live.pending.set(live.parent, HANG_UP);
    await redirect(mover.sid, twiml);
    if (live.parent === null) hangUp(leaver.sid);
    live.parent = null;
  }

  async function setHolds(
    key: string,
    data: Record<string, string | number> | null,
  ): Promise<void> {
    try {
      holdsReady ??= deps.rest.ensureMap(HOLDS.name);
      await holdsReady;
      if (data === null) await deps.rest.removeMapItem(HOLDS.name, key);
      else await deps.rest.setMapItem(HOLDS.name, key, data);
    } catch (err) {
      holdsReady = null;
      log(`holds ${key}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  function unpark(live: Live): void {
    if (!live.parked) return;
    clearTimeout(live.parked.timer);
    live.parked = null;
    const waiting = live.sides[0];
    if (waiting) void setHolds(waiting.sid, null);
  }

  /** `<Dial><Client>` for a ring-back or a transfer, its action coming back to {@link afterRing}. */
  function ringTwiml(live: Live, identity: string, params: Record<string, string>): string {
    return new Twiml()
      .dial(
        {
          timeout: dialSeconds(deps.ringSeconds),
          answerOnBridge: true,
          action: url(TWILIO_PATHS.after, { call: live.id }),
        },
        [
          {
            client: voiceIdentityOf(identity),
            attrs: {
              statusCallback: url(TWILIO_PATHS.leg),
              statusCallbackEvent: ['answered', 'completed'],
            },
            parameters: params,
          },
        ],
      )
      .toString();
  }

  async function ringBack(live: Live, waiting: Side, to: Side, why: string): Promise<void> {
    if (to.identity === null) return;
    live.ringing = { identity: to.identity, purpose: 'ringBack', back: null };
    trail(live, { action: 'rangBack', by: to.identity, at: now() });
    await redirect(
      waiting.sid,
      ringTwiml(live, to.identity, {
        [CALL_PARAMETERS.callerName]: waiting.name,
        [CALL_PARAMETERS.ringBack]: '1',
        [CALL_PARAMETERS.ringBackReason]: why,
      }),
    ).catch(() => undefined);
  }

  function parkTimedOut(live: Live): void {
    const parked = live.parked;
    const waiting = live.sides[0];
    if (!parked || live.claimedBy !== null || !waiting) return;
    unpark(live);
    const parker: Side = { sid: '', identity: parked.by, name: parked.byName };
    void serial(live, () => ringBack(live, waiting, parker, 'The call was parked too long'));
  }

  return {
    hold(identity, callSid, on) {
      const { live } = own(identity, callSid);
      return serial(live, async () => {
        const { me, them: other } = own(identity, callSid);
        const them = talking(live, other, 'put on hold');
        if (on) {
          if (live.heldBy === me.sid) return;
          if (live.heldBy !== null)
            throw new CallControlError(
              409,
              'held_by_them',
              'The other side has put this call on hold; it can be held once they resume it.',
            );
          if (live.room === null || !live.started) {
            const room = `hold-${randomBytes(8).toString('hex')}`;
            const twimlOf = (side: Side): string =>
              side === them
                ? conference(room, { start: false, endOnExit: true, waitUrl: HOLD_MUSIC })
                : conference(room, { start: false, endOnExit: false, waitUrl: '' });
            if (live.parent !== null) {
              const child = live.sides.find((s) => s.sid !== live.parent)!;
              const parent = live.sides.find((s) => s.sid === live.parent)!;
              live.pending.set(parent.sid, twimlOf(parent));
              await redirect(child.sid, twimlOf(child));
            } else {
              await redirect(them.sid, twimlOf(them));
              await redirect(me.sid, twimlOf(me));
            }
            live.parent = null;
            live.room = room;
            live.started = false;
          } else await participantHold(live, them, true);
          live.heldBy = me.sid;
          trail(live, { action: 'held', by: identity, at: now() });
          tellHeld(them, me.name, 'held');
          return;
        }
        if (live.heldBy === null) return;
        if (live.heldBy !== me.sid)
          throw new CallControlError(
            409,
            'held_by_them',
            'The other side put this call on hold; only they can resume it.',
          );
        if (!live.started && live.room !== null) {
          await redirect(me.sid, conference(live.room, { start: true, endOnExit: true }));
          live.started = true;
        } else await participantHold(live, them, false);
        live.heldBy = null;
        trail(live, { action: 'resumed', by: identity, at: now() });
        tellHeld(them, me.name, 'resumed');
      });
    },

    park(identity, callSid) {
      const { live } = own(identity, callSid);
      return serial(live, async () => {
        const { me, them: other } = own(identity, callSid);
        const them = talking(live, other, 'parked');
        if (live.heldBy !== null && live.heldBy !== me.sid)
          throw new CallControlError(
            409,
            'held_by_them',
            'The other side has put this call on hold; it can be parked once they resume it.',
          );
        const room = `park-${them.sid}`;
        await moveAway(
          live,
          them,
          me,
          conference(room, { start: false, endOnExit: true, waitUrl: HOLD_MUSIC }),
        );
        bySid.delete(me.sid);
        live.sides = [them];
        live.room = room;
        live.started = false;
        live.heldBy = null;
        const at = now();
        const timer = setTimeout(() => parkTimedOut(live), deps.parkTimeoutMs);
        timer.unref();
        live.parked = { by: identity, byName: me.name, at, timer };
        pickedUp.delete(them.sid);
        trail(live, { action: 'parked', by: identity, at });
        tellHeld(them, me.name, 'held');
        const entry = { caller: them.name, parkedBy: identity, parkedAt: at };
        await setHolds(them.sid, entry);
        return { callId: them.sid, ...entry };
      });
    },

    async transfer(identity, callSid, to, mode) {
      const { live } = own(identity, callSid);
      if (mode === 'consult')
        throw new CallControlError(
          409,
          'unavailable',
          'Talking to a colleague before a transfer is not available on Twilio yet: transfer the call now instead.',
        );
      const target = to.trim();
      if (target === '')
        throw new CallControlError(400, 'bad_request', 'Say who to transfer the call to.');
      const dest = resolveDestination(target, deps.team());
      if (dest.kind === 'unknown') throw new CallControlError(404, 'not_found', dest.reason);
      if (dest.kind !== 'person')
        throw new CallControlError(
          409,
          'unavailable',
          'Transferring to a ring group is not available on Twilio yet: transfer to a colleague.',
        );
      const can = await deps.availability(dest.identity);
      return serial(live, async () => {
        const { me, them: other } = own(identity, callSid);
        const them = talking(live, other, 'transferred');
        if (live.heldBy !== null && live.heldBy !== me.sid)
          throw new CallControlError(
            409,
            'held_by_them',
            'The other side has put this call on hold; it can be transferred once they resume it.',
          );
        if (dest.identity === identity)
          throw new CallControlError(400, 'bad_request', 'You cannot transfer a call to yourself.');
        if (dest.identity === them.identity)
          throw new CallControlError(400, 'bad_request', `${dest.name} is already on this call.`);
        if (can === 'offline')
          throw new CallControlError(409, 'unavailable', CALL_REASONS.offline(dest.name));
        if (can === 'doNotDisturb')
          throw new CallControlError(409, 'unavailable', CALL_REASONS.doNotDisturb(dest.name));
        if (calls.isOnCall(dest.identity))
          throw new CallControlError(409, 'unavailable', CALL_REASONS.busy(dest.name));
        await moveAway(
          live,
          them,
          me,
          ringTwiml(live, dest.identity, { [CALL_PARAMETERS.callerName]: them.name }),
        );
        bySid.delete(me.sid);
        live.sides = [them];
        live.room = null;
        live.started = false;
        live.heldBy = null;
        live.ringing = { identity: dest.identity, purpose: 'transfer', back: me };
        tellHeld(them, me.name, 'held');
      });
    },

    completeTransfer() {
      return Promise.reject(
        new CallControlError(409, 'no_transfer', 'There is no transfer under way on this call.'),
      );
    },
    cancelTransfer() {
      return Promise.reject(
        new CallControlError(409, 'no_transfer', 'There is no transfer under way on this call.'),
      );
    },

    pickUp(pickerSid, picker, callId) {
      const live = bySid.get(callId);
      for (const [sid, p] of pickedUp) if (p.at < now() - 3_600_000) pickedUp.delete(sid);
      if (live && live.claimedBy !== null)
        return { refused: live.claimedBy === picker ? PICKED_MINE : TAKEN_SENTENCE };
      if (!live || !live.parked) {
        const taken = pickedUp.get(callId);
        if (taken) return { refused: taken.by === picker ? PICKED_MINE : TAKEN_SENTENCE };
        if (live?.ringing) return { refused: 'This call is ringing back to whoever parked it.' };
        return { refused: live ? 'This call is no longer on hold.' : GONE_SENTENCE };
      }
      if (calls.isOnCall(picker))
        return { refused: 'Finish or park your own call before picking up another.' };
      const waiting = live.sides[0]!;
      live.claimedBy = picker;
      unpark(live);
      pickedUp.set(callId, { by: picker, at: now() });
      const side: Side = { sid: pickerSid, identity: picker, name: deps.nameOf(picker) };
      live.sides = [waiting, side];
      live.started = true;
      live.claimedBy = null;
      bySid.set(pickerSid, live);
      legs.markJoined(pickerSid);
      // The picker's quality report belongs on the call's row.
      calls.party(pickerSid, live.id, picker);
      const state = stateOf(live);
      if (state) state.answeredBy = picker;
      trail(live, { action: 'pickedUp', by: picker, at: now() });
      tellHeld(waiting, side.name, 'resumed');
      party(waiting, side);
      party(side, waiting);
      return {
        twiml: conference(live.room ?? `park-${callId}`, { start: true, endOnExit: true }),
      };
    },

    afterRing(callSid, dialStatus) {
      const live = bySid.get(callSid);
      if (!live || dialStatus === 'completed' || dialStatus === 'answered' || !live.ringing)
        return HANG_UP;
      const { identity, purpose, back } = live.ringing;
      live.ringing = null;
      const waiting = live.sides.find((s) => s.sid === callSid);
      if (purpose !== 'transfer' || !back || !waiting) return HANG_UP;
      const name = deps.nameOf(identity);
      const why = `${name} ${dialStatus === 'busy' ? 'declined' : 'did not answer'} the transfer`;
      live.ringing = { identity: back.identity!, purpose: 'ringBack', back: null };
      trail(live, { action: 'rangBack', by: back.identity!, at: now() });
      return ringTwiml(live, back.identity!, {
        [CALL_PARAMETERS.callerName]: waiting.name,
        [CALL_PARAMETERS.ringBack]: '1',
        [CALL_PARAMETERS.ringBackReason]: why,
      });
    },

    answered: (parentSid, legSid, identity) => legs.answered(parentSid, legSid, identity),
    ended: (callSid) => legs.ended(callSid),
    pendingFor: (callSid) => legs.pendingFor(callSid),
    joined: legs.joined,
    callOf: legs.callOf,
  };

  async function participantHold(live: Live, side: Side, hold: boolean): Promise<void> {
    try {
      const [found] = await client.conferences.list({
        friendlyName: live.room!,
        status: 'in-progress',
        limit: 1,
      });
      if (!found) throw new Error(`no conference ${live.room}`);
      await client
        .conferences(found.sid)
        .participants(side.sid)
        .update(hold ? { hold: true, holdUrl: HOLD_MUSIC } : { hold: false });
    } catch (err) {
      log(
        `call ${live.id}: hold in ${live.room}: ${err instanceof Error ? err.message : String(err)}`,
      );
      throw new CallControlError(409, 'no_such_call', 'That call has ended.');
    }
  }
}
