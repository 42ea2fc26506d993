/**
 * Hold, resume, park, pick-up, ring-back and transfers of a live call, written against Twilio's
 * Voice API only (moves.ts says how: a leg's new TwiML through the Call resource, legs that wait or
 * talk in a conference, a participant's `Hold`). On the twins (embedded, `twilio-twins`) the same
 * requests reach the voice twin (server/twins/voice/twiml/).
 *
 * - Hold: both legs enter one conference that does not start: the held side waits with the music,
 *   the holder in silence. Resume moves the holder in again with `startConferenceOnEnter="true"`:
 *   they talk. Later holds in that started conference are the held participant's `Hold`.
 * - Park: the waiting side alone in a conference of its own (a new room each park), with the
 *   music; the parker's leg ends, and the `holds` item is written for /hold. Pick-up: the picker's
 *   browser dials `park:<leg>`; the first picker's call joins that conference (starting it), any
 *   later one is refused with the reason. A park that lasts too long rings the parker back (`<Dial><Client>`).
 * - Blind transfer: the waiting side's leg dials the colleague, or a group's members turn by turn
 *   (who can take a call now, as the routing engine says), a turn of more than ten in batches of
 *   ten; nobody answering rings the transferrer back, with the reason. The ring is served at
 *   TWILIO_PATHS.ring, which the call update names (`Url`), not sent inline. The attended transfer
 *   is consult.ts.
 *
 * One history row per call: the first call's row waits until the last of its legs has ended, and
 * carries the trail (held, resumed, parked, picked up, rang back, transferred).
 *
 * State is in this process: Twilio's requests for one call must reach this server. Not carried yet:
 * a group's own hold audio (the built-in music plays).
 */
import { CALL_REASONS } from '../../src/domain/calls/reasons';
import { transferTurns } from '../../src/domain/routing/engine';
import { CALL_PARAMETERS } from '../../src/contracts/call-parameters';
import { HOLDS } from '../../src/contracts/objects';
import type {
  CallControl as ControlName,
  CallControlAnswer,
  CallControlArgs,
} from '../../src/contracts/call-controls';
import { normaliseNumber } from '../../src/contracts/records/group';
import { dialledGroups } from '../../src/domain/group';
import type { User } from '../identity/users';
import { CallControlError, GONE_SENTENCE, TAKEN_SENTENCE } from './refusals';
import { resolveDestination, type Destination } from './destination';
import type { CallLog, CallState } from './call-log';
import type { TwilioClient } from '../twilio/client';
import { createConsult } from './consult';
import { createLiveCalls, type Live, type Ringing, type Side } from './live-calls';
import { conference, createMoves, HANG_UP, HOLD_MUSIC, roomName } from './moves';
import { clientBatches } from './twiml';
import { TWILIO_PATHS } from '../../src/contracts/api';
import type { RoutingData } from '../routing/routing-data';
import type { SyncRest } from '../twilio/sync-rest';

export { HOLD_MUSIC } from './moves';

export interface CallControlDeps {
  client: TwilioClient;
  calls: CallLog;
  rest: SyncRest;
  data: Pick<RoutingData, 'groups' | 'groupByNumber' | 'prepare' | 'availability'>;
  /** The server's public origin (known once it listens, on the twins). */
  publicUrl: () => string;
  team: () => readonly User[];
  nameOf: (identity: string) => string;
  tell: (callSid: string, content: Record<string, unknown>) => void;
  /** Writes the first call's row (all its legs have ended). */
  finish: (state: CallState) => void;
  parkTimeoutMs: number;
  /** How long a colleague is rung (a ring-back, a transfer to them). */
  ringSeconds: number;
  now: () => number;
  log: (message: string) => void;
}

/**
 * The call controls of src/contracts/call-controls.ts, each carried out for the person (`identity`)
 * on one of their calls (`callSid` as their browser knows it) with its route's body, answering its
 * route's answer; refused with a {@link CallControlError}.
 */
export type CallControls = {
  [C in ControlName]: (
    identity: string,
    callSid: string,
    ...args: CallControlArgs<C>
  ) => Promise<CallControlAnswer<C>>;
};

/** The call controls, and what Twilio's webhooks tell the calls they move. */
export interface CallControl extends CallControls {
  /**
   * A `<Dial>` leg answered: a new call's two sides, or who took a ring-back or transfer. `identity`
   * is the colleague a `<Client>` rang, null for a `<Number>`'s phone (`number`).
   */
  answered(parentSid: string, legSid: string, identity: string | null, number: string): void;
  /** A leg ended; true when no row is to be written for it now (its call goes on, or a pick-up's). */
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
  /** The ring a control gave `callSid` (TWILIO_PATHS.ring), or null when it has none. */
  ringFor(callSid: string): string | null;
  /** An attended transfer's call to its target progressed (the call's status callback). */
  consultProgress(liveId: string, callSid: string, status: string): void;
  /** The first call's sid of the call `callSid` is a leg of (the row's), or null. */
  callOf(callSid: string): string | null;
}

const PICKED_MINE = 'You already picked up this call.';
/**
 * How long a request about a call this server does not know yet waits for Twilio's report that it
 * was answered (live-calls.ts, `known`) before it is refused as not in progress.
 */
const ANSWER_REPORT_MS = 3000;
const heldByThem = (what: string): CallControlError =>
  new CallControlError(
    409,
    'held_by_them',
    `The other side has put this call on hold; it can be ${what} once they resume it.`,
  );

export function createCallControl(deps: CallControlDeps): CallControl {
  const { calls, now, log } = deps;
  /** Pick-ups that happened, by the parked leg, for an hour: who took it. */
  const pickedUp = new Map<string, { by: string; at: number }>();
  const legs = createLiveCalls({
    calls,
    nameOf: deps.nameOf,
    tell: deps.tell,
    finish: deps.finish,
    now,
    unpark: (live) => unpark(live),
    hangUp: (callSid) => moves.hangUp(callSid),
    transferrerGone: (live, by) => consult.transferrerGone(live, by),
  });
  const { bySid, own, talking, serial, trail, stateOf, tellHeld, party } = legs;
  const answerReported = (callSid: string): Promise<void> => legs.known(callSid, ANSWER_REPORT_MS);
  const moves = createMoves({ client: deps.client, publicUrl: deps.publicUrl, bySid, log });
  /**
   * The ring each waiting leg was last given by a control (a blind transfer, a ring-back), by its
   * sid: served at TWILIO_PATHS.ring until its `<Dial>` ends or the leg does. A ring of ten
   * `<Client>`s with their parameters is about 3,600 characters, near the 4,000 inline `Twiml` may
   * have (https://www.twilio.com/docs/api/errors/32018), so the call update asks for it by `Url`.
   */
  const rings = new Map<string, string>();
  const ringAt = (waiting: Side, twiml: string): { url: string } => {
    rings.set(waiting.sid, twiml);
    return { url: moves.url(TWILIO_PATHS.ring) };
  };
  let holdsReady: Promise<void> | null = null;

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

  /** The waiting side's leg rings `ringing`'s people (the call is told who rings it back and why). */
  function ringTwiml(
    live: Live,
    waiting: Side,
    ringing: Ringing,
    seconds: number,
    why = '',
  ): string {
    live.ringing = ringing;
    return moves.ring(live, ringing.identities, seconds, {
      [CALL_PARAMETERS.callerName]: waiting.name,
      ...(ringing.group
        ? {
            [CALL_PARAMETERS.group]: ringing.group.name,
            [CALL_PARAMETERS.groupId]: ringing.group.id,
          }
        : {}),
      ...(ringing.purpose === 'ringBack'
        ? { [CALL_PARAMETERS.ringBack]: '1', [CALL_PARAMETERS.ringBackReason]: why }
        : {}),
    });
  }

  /** Rings `back` (who parked or transferred the call) from the waiting leg, saying why. */
  function ringBackTwiml(live: Live, waiting: Side, back: string, why: string): string {
    trail(live, { action: 'rangBack', by: back, at: now() });
    const ringing: Ringing = {
      purpose: 'ringBack',
      identities: [back],
      targetName: deps.nameOf(back),
      turns: [],
      group: null,
      back: null,
    };
    return ringTwiml(live, waiting, ringing, deps.ringSeconds, why);
  }

  function parkTimedOut(live: Live): void {
    const parked = live.parked;
    const waiting = live.sides[0];
    if (!parked || !waiting) return;
    unpark(live);
    void serial(live, () =>
      moves
        .redirect(
          waiting.sid,
          ringAt(waiting, ringBackTwiml(live, waiting, parked.by, 'The call was parked too long')),
        )
        .catch(() => undefined),
    );
  }

  /** Who a transfer rings first and after: a colleague who can take it, or a group's turns. */
  async function transferTurnsTo(
    dest: Exclude<Destination, { kind: 'unknown' }>,
    me: string,
    waiting: string | null,
  ): Promise<Pick<Ringing, 'identities' | 'turns' | 'group' | 'targetName'> & { seconds: number }> {
    if (dest.kind === 'group') {
      if (dest.test)
        throw new CallControlError(400, 'bad_request', 'A test call cannot take a transfer.');
      const prepared = await deps.data.prepare(dest.groupId);
      const setup = prepared.setupOf(dest.groupId);
      if (!setup)
        throw new CallControlError(404, 'not_found', `${dest.name} is no longer a ring group.`);
      const leaveOut = waiting === null ? [me] : [me, waiting];
      const planned = transferTurns(setup, prepared.availabilityOf, deps.nameOf, leaveOut);
      const { skipped } = planned;
      // A turn of more than ten rings in batches of ten, one after another, as a routed call's ring
      // does (twiml.ts): at most ten `<Client>` nouns in one `<Dial>`
      // (https://www.twilio.com/docs/voice/twiml/client).
      const turns = planned.turns.flatMap((turn) =>
        clientBatches(turn.identities).map((identities) => ({ ...turn, identities })),
      );
      const [first, ...rest] = turns;
      if (!first) {
        const why = skipped.length > 0 ? ` (${skipped.join(', ')})` : '';
        throw new CallControlError(
          409,
          'unavailable',
          `Nobody else in ${dest.name} can take the call now${why}.`,
        );
      }
      return {
        identities: first.identities,
        seconds: first.seconds,
        turns: rest,
        group: { id: dest.groupId, name: dest.name },
        targetName: dest.name,
      };
    }
    if (dest.identity === me)
      throw new CallControlError(400, 'bad_request', 'You cannot transfer a call to yourself.');
    if (dest.identity === waiting)
      throw new CallControlError(400, 'bad_request', `${dest.name} is already on this call.`);
    const can = await deps.data.availability(dest.identity);
    if (can === 'offline')
      throw new CallControlError(409, 'unavailable', CALL_REASONS.offline(dest.name));
    if (can === 'doNotDisturb')
      throw new CallControlError(409, 'unavailable', CALL_REASONS.doNotDisturb(dest.name));
    // "On a call" is the routing's word, this server's own account corrected by Twilio's
    // (routing-data.ts availabilities): a callback reported late does not keep them busy.
    if (can === 'onCall')
      throw new CallControlError(409, 'unavailable', CALL_REASONS.busy(dest.name));
    return {
      identities: [dest.identity],
      seconds: deps.ringSeconds,
      turns: [],
      group: null,
      targetName: dest.name,
    };
  }

  const consult = createConsult({
    legs,
    moves,
    calls,
    tell: deps.tell,
    nameOf: deps.nameOf,
    now,
  });

  async function setHold(identity: string, callSid: string, on: boolean): Promise<void> {
    await answerReported(callSid);
    const { live } = own(identity, callSid);
    return serial(live, async () => {
      const { me, them: other } = own(identity, callSid);
      const them = talking(live, other, 'put on hold');
      if (on) {
        if (live.heldBy === me.sid) return;
        if (live.heldBy !== null) throw heldByThem('held');
        if (live.room === null || !live.started) await moves.holdApart(live, me, them);
        else await moves.holdParticipant(live, them, true);
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
      if (!live.started) await moves.rejoin(live, me);
      else await moves.holdParticipant(live, them, false);
      live.heldBy = null;
      trail(live, { action: 'resumed', by: identity, at: now() });
      tellHeld(them, me.name, 'resumed');
    });
  }

  return {
    hold: (identity, callSid) => setHold(identity, callSid, true),
    resume: (identity, callSid) => setHold(identity, callSid, false),

    async park(identity, callSid) {
      await answerReported(callSid);
      const { live } = own(identity, callSid);
      return serial(live, async () => {
        const { me, them: other } = own(identity, callSid);
        const them = talking(live, other, 'parked');
        if (live.heldBy !== null && live.heldBy !== me.sid) throw heldByThem('parked');
        // A room of its own each time: after a pick-up, the last park's room may still be going.
        const room = roomName('park');
        await moves.moveAway(
          live,
          them,
          me,
          conference(room, { start: false, endOnExit: false, waitUrl: HOLD_MUSIC }),
        );
        bySid.delete(me.sid);
        // The parker is free at once (a pick-up of their own, another call), not once Twilio reports
        // their leg over.
        calls.legEnded(me.sid);
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
        return { parked: { callId: them.sid, ...entry } };
      });
    },

    async transfer(identity, callSid, { to, mode }) {
      await answerReported(callSid);
      const { live, them: before } = own(identity, callSid);
      const target = to.trim();
      if (target === '')
        throw new CallControlError(400, 'bad_request', 'Say who to transfer the call to.');
      const groups = dialledGroups(await deps.data.groups());
      // A group saved a moment ago may not be in the groups as last read: asked by its number,
      // they are read again (routing-data.ts).
      const number = normaliseNumber(target);
      const fresh = number === '' ? null : await deps.data.groupByNumber(number);
      if (fresh && !groups.some((g) => g.id === fresh.id))
        groups.push(...dialledGroups([[fresh.id, fresh.group]]));
      const dest = resolveDestination(target, deps.team(), groups);
      if (dest.kind === 'unknown') throw new CallControlError(404, 'not_found', dest.reason);
      const plan = await transferTurnsTo(dest, identity, before?.identity ?? null);
      return serial(live, async () => {
        const { me, them: other } = own(identity, callSid);
        const them = talking(live, other, 'transferred');
        if (live.heldBy !== null && live.heldBy !== me.sid) throw heldByThem('transferred');
        if (mode === 'consult') {
          await consult.start(live, me, them, plan);
          return;
        }
        const ringing: Ringing = { purpose: 'transfer', back: me, ...plan };
        await moves.moveAway(
          live,
          them,
          me,
          ringAt(them, ringTwiml(live, them, ringing, plan.seconds)),
        );
        bySid.delete(me.sid);
        calls.legEnded(me.sid);
        live.sides = [them];
        live.room = null;
        live.started = false;
        live.heldBy = null;
        tellHeld(them, me.name, 'held');
      });
    },

    completeTransfer: async (identity, callSid) => {
      await answerReported(callSid);
      return consult.complete(identity, callSid);
    },
    cancelTransfer: async (identity, callSid) => {
      await answerReported(callSid);
      return consult.cancel(identity, callSid);
    },
    consultProgress: (liveId, callSid, status) => consult.progress(liveId, callSid, status),

    pickUp(pickerSid, picker, callId) {
      const live = bySid.get(callId);
      for (const [sid, p] of pickedUp) if (p.at < now() - 3_600_000) pickedUp.delete(sid);
      if (!live || !live.parked) {
        const taken = pickedUp.get(callId);
        if (taken) return { refused: taken.by === picker ? PICKED_MINE : TAKEN_SENTENCE };
        if (live?.ringing) return { refused: 'This call is ringing back to whoever parked it.' };
        return { refused: live ? 'This call is no longer on hold.' : GONE_SENTENCE };
      }
      if (calls.isOnCall(picker))
        return { refused: 'Finish or park your own call before picking up another.' };
      const waiting = live.sides[0]!;
      // Claimed here, in one turn of the event loop: a later picker finds it unparked.
      unpark(live);
      pickedUp.set(callId, { by: picker, at: now() });
      const side: Side = { sid: pickerSid, identity: picker, name: deps.nameOf(picker) };
      live.sides = [waiting, side];
      live.started = true;
      bySid.set(pickerSid, live);
      legs.wake(pickerSid);
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
        twiml: conference(live.room ?? roomName('park'), { start: true, endOnExit: false }),
      };
    },

    afterRing(callSid, dialStatus) {
      // The ring given is over: what follows is this answer's.
      rings.delete(callSid);
      const live = bySid.get(callSid);
      const ringing = live?.ringing;
      if (!live || !ringing || dialStatus === 'completed' || dialStatus === 'answered')
        return HANG_UP;
      live.ringing = null;
      const waiting = live.sides.find((s) => s.sid === callSid);
      if (ringing.purpose !== 'transfer' || !ringing.back?.identity || !waiting) return HANG_UP;
      // A group's next turn, else back to whoever sent it.
      const [next, ...rest] = ringing.turns;
      if (next)
        return ringTwiml(
          live,
          waiting,
          { ...ringing, identities: next.identities, turns: rest },
          next.seconds,
        );
      const why = ringing.group
        ? `Nobody in ${ringing.targetName} could take the call`
        : `${ringing.targetName} ${dialStatus === 'busy' ? 'declined' : 'did not answer'} the transfer`;
      return ringBackTwiml(live, waiting, ringing.back.identity, why);
    },

    answered: (parentSid, legSid, identity, number) =>
      legs.answered(parentSid, legSid, identity, number),
    ended: (callSid) => {
      rings.delete(callSid);
      return legs.ended(callSid);
    },
    ringFor: (callSid) => rings.get(callSid) ?? null,
    pendingFor: (callSid) => legs.pendingFor(callSid),
    callOf: legs.callOf,
  };
}
