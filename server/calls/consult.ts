/**
 * The attended transfer: the transferrer talks to the colleague first, then hands the call over or
 * takes it back. Through the Voice API only (moves.ts):
 *
 * - start: the waiting side is held (as a hold does: alone in the call's conference, with the music);
 *   the transferrer's leg moves to a conference of its own and waits there in silence; a call is
 *   placed to the colleague's browsers (the Calls resource), whose TwiML joins that conference and
 *   starts it. Its status callback (TWILIO_PATHS.consult) says when they answer or go. To a ring
 *   group, each of its members who can take a call now is called, turn by turn as the group rings
 *   (all at once, or in order): the first to answer is talked to, the others' calls are cancelled.
 * - complete: the waiting side joins the transferrer's conference (it is started: they talk), and
 *   the transferrer's leg ends.
 * - cancel, or the colleague declining, not answering or hanging up first (a group: its last turn
 *   unanswered): their call ends and the transferrer joins the waiting side again, as a resume does;
 *   the page is told why.
 */
import type { RingTurn } from '../../src/domain/routing/engine';
import { CallControlError } from './refusals';
import type { CallLog } from './call-log';
import type { Consult, LiveCalls, Live, Side } from './live-calls';
import { conference, roomName, type Moves } from './moves';
import { dialSeconds } from './twiml';

const FINAL = ['completed', 'busy', 'failed', 'no-answer', 'canceled'];
/** Between a turn's calls placed through the API: Twilio's default calls per second, 1. */
export const PLACING_INTERVAL_MS = 1000;

/** Who an attended transfer rings: a colleague, or a ring group's turns. */
export interface ConsultPlan {
  /** The colleague's or the group's name. */
  targetName: string;
  /** The group's id and name, or null for a colleague. */
  group: { id: string; name: string } | null;
  /** The first turn, then the rest. */
  identities: readonly string[];
  seconds: number;
  turns: RingTurn[];
}

export function createConsult(deps: {
  legs: LiveCalls;
  moves: Moves;
  calls: CallLog;
  tell: (callSid: string, content: Record<string, unknown>) => void;
  nameOf: (identity: string) => string;
  now: () => number;
}) {
  const { legs, moves, now } = deps;

  /** The transferrer's own consultation on `callSid`, refused when there is none. */
  function ownConsult(identity: string, callSid: string) {
    const { live, me, them } = legs.own(identity, callSid);
    const consult = live.consult;
    if (!consult || !them || consult.by !== me.sid)
      throw new CallControlError(
        409,
        'no_transfer',
        'There is no transfer under way on this call.',
      );
    return { live, me, them, consult };
  }

  /** The transferrer back with the waiting side, as a resume. */
  async function backToCall(live: Live, me: Side, them: Side): Promise<void> {
    live.consult = null;
    if (live.started) {
      await moves.redirect(me.sid, conference(live.room!, { start: true, endOnExit: false }));
      await moves.holdParticipant(live, them, false);
    } else await moves.rejoin(live, me);
    live.heldBy = null;
    legs.trail(live, { action: 'resumed', by: me.identity ?? '', at: now() });
    legs.tellHeld(them, me.name, 'resumed');
  }

  /**
   * Calls each of `identities` into the consultation's room from the transferrer, the turn ringing
   * `seconds` as a `<Dial>` turn does: resolves once the first call is placed (1; 0 when none could
   * be: the others' failures are logged by moves.place). The others follow one a second: Twilio
   * places API calls at the account's calls per second, 1 by default, and queues the rest
   * (https://www.twilio.com/docs/glossary/cps), so placing them at once would only queue them there,
   * ringing late and each for its whole Timeout. Each call's Timeout is what is left of the turn,
   * less the 5 s Twilio adds ("For some call flows, we will add a 5-second buffer to the timeout",
   * https://www.twilio.com/docs/voice/api/call-resource; `dialSeconds`, as for a `<Dial>`), so the
   * whole turn ends together.
   */
  async function ringTurn(
    live: Live,
    consult: Consult,
    from: string,
    identities: readonly string[],
    seconds: number,
  ): Promise<number> {
    const endsAt = now() + seconds * 1000;
    const placeOne = async (identity: string): Promise<void> => {
      const sid = await moves.place(
        live,
        identity,
        from,
        dialSeconds((endsAt - now()) / 1000),
        conference(consult.room, { start: true, endOnExit: false }),
      );
      // Too late (cancelled, or someone else answered meanwhile): this one stops ringing.
      if (live.consult !== consult || consult.callSid !== null) moves.hangUp(sid, true);
      else consult.ringing.set(sid, identity);
    };
    let first = 0;
    let failure: Error | null = null;
    for (; first < identities.length; first++) {
      try {
        await placeOne(identities[first]!);
        break;
      } catch (err) {
        failure ??= err instanceof Error ? err : new Error('The call could not be placed.');
      }
    }
    if (first === identities.length) {
      if (failure !== null) throw failure;
      return 0;
    }
    const rest = identities.slice(first + 1);
    if (rest.length > 0) void placeRest(live, consult, rest, endsAt, placeOne);
    return 1;
  }

  /** The rest of a turn's calls, one a second while the turn lasts and nobody has answered. */
  async function placeRest(
    live: Live,
    consult: Consult,
    identities: readonly string[],
    endsAt: number,
    placeOne: (identity: string) => Promise<void>,
  ): Promise<void> {
    consult.placing = true;
    try {
      for (const identity of identities) {
        await new Promise((resolve) => setTimeout(resolve, PLACING_INTERVAL_MS));
        if (live.consult !== consult || consult.callSid !== null) return;
        if (endsAt - now() < PLACING_INTERVAL_MS) return;
        await placeOne(identity).catch(() => undefined);
      }
    } finally {
      consult.placing = false;
      // The calls placed so far all ended unanswered while the last were placed: the turn is over.
      const me = live.sides.find((s) => s.sid === consult.by);
      if (live.consult === consult && consult.callSid === null && consult.ringing.size === 0 && me)
        turnOver(live, consult, me, 'no-answer');
    }
  }

  /** Every call of the consultation still ringing stops. */
  function stopRinging(consult: Consult): void {
    for (const sid of consult.ringing.keys()) moves.hangUp(sid, true);
    consult.ringing.clear();
  }

  /** Nobody took the turn that just ended: the next one rings, or the transferrer is back, told why. */
  function turnOver(live: Live, consult: Consult, me: Side, status: string): void {
    void legs.serial(live, async () => {
      if (live.consult !== consult || consult.callSid !== null || consult.ringing.size > 0) return;
      for (let next = consult.turns.shift(); next; next = consult.turns.shift()) {
        if (live.consult !== consult) return;
        const placed = await ringTurn(
          live,
          consult,
          me.identity ?? '',
          next.identities,
          next.seconds,
        ).catch(() => 0);
        if (placed > 0) return;
      }
      const reason = consult.group
        ? `Nobody in ${consult.group.name} could take the call.`
        : status === 'busy'
          ? `${consult.targetName} declined.`
          : `${consult.targetName} did not answer.`;
      await ended(live, consult, me, reason);
    });
  }

  /** The consultation is over without a hand-over: the transferrer is back with the caller. */
  /** The caller joins the colleague in the consult's conference: the transfer is done. */
  async function handOver(live: Live, them: Side, consult: Consult, by: string): Promise<void> {
    if (consult.callSid === null || consult.identity === null) return;
    const target: Side = { sid: consult.callSid, identity: consult.identity, name: consult.name };
    await moves.redirect(them.sid, conference(consult.room, { start: true, endOnExit: false }));
    legs.bySid.set(target.sid, live);
    legs.wake(target.sid);
    live.sides = [them, target];
    live.room = consult.room;
    live.started = true;
    live.heldBy = null;
    live.consult = null;
    const state = legs.stateOf(live);
    if (state) state.answeredBy = consult.identity;
    legs.trail(live, { action: 'transferred', by, to: consult.identity, at: now() });
    legs.tellHeld(them, target.name, 'resumed');
    legs.party(them, target);
    legs.party(target, them);
  }

  async function ended(live: Live, consult: Consult, me: Side, reason: string): Promise<void> {
    if (live.consult !== consult) return;
    const them = live.sides.find((s) => s !== me);
    if (them) await backToCall(live, me, them).catch(() => undefined);
    else live.consult = null;
    deps.tell(me.sid, { event: 'consultEnded', reason });
  }

  return {
    async start(live: Live, me: Side, them: Side, plan: ConsultPlan): Promise<void> {
      const room = roomName('consult');
      // The transferrer waits in silence in the consultation's own conference.
      const waitApart = conference(room, { start: false, endOnExit: false, waitUrl: '' });
      /** The transferrer's leg was given `waitApart` with the hold (issue 42, finding 7). */
      let moved = false;
      if (live.heldBy !== me.sid) {
        if (live.room === null || !live.started) {
          // One move for both legs: a `<Dial>`'s parent redirected again while its child's
          // redirect is pending would hang the child (the waiting caller) up.
          await moves.holdApart(live, me, them, waitApart);
          moved = true;
        } else await moves.holdParticipant(live, them, true);
        live.heldBy = me.sid;
        legs.trail(live, { action: 'held', by: me.identity ?? '', at: now() });
        legs.tellHeld(them, me.name, 'held');
      }
      const consult: Consult = {
        by: me.sid,
        targetName: plan.targetName,
        group: plan.group,
        turns: [...plan.turns],
        ringing: new Map(),
        placing: false,
        identity: null,
        name: '',
        room,
        callSid: null,
      };
      live.consult = consult;
      try {
        if (!moved) await moves.redirect(me.sid, waitApart);
        await ringTurn(live, consult, me.identity ?? '', plan.identities, plan.seconds);
      } catch (err) {
        stopRinging(consult);
        await backToCall(live, me, them).catch(() => undefined);
        throw err;
      }
    },

    complete(identity: string, callSid: string): Promise<void> {
      const { live } = ownConsult(identity, callSid);
      return legs.serial(live, async () => {
        const { me, them, consult } = ownConsult(identity, callSid);
        if (consult.callSid === null || consult.identity === null)
          throw new CallControlError(
            409,
            'no_transfer',
            `${consult.targetName} has not answered yet: wait, or cancel the transfer.`,
          );
        // The transferrer leaves first (the colleague waits a moment alone), then the caller joins.
        legs.bySid.delete(me.sid);
        moves.hangUp(me.sid);
        await handOver(live, them, consult, identity);
      });
    },

    /**
     * The transferrer hung up during the transfer: once the colleague is in, the caller is handed
     * to them (as Complete); before, the call ends and the colleague stops ringing.
     */
    transferrerGone(live: Live, by: string): void {
      const consult = live.consult;
      const them = live.sides.find((s) => s.sid !== consult?.by);
      if (!consult || !them) return;
      void legs
        .serial(live, async () => {
          if (live.consult !== consult) return;
          if (consult.callSid !== null && consult.identity !== null) {
            await handOver(live, them, consult, by);
            return;
          }
          stopRinging(consult);
          live.consult = null;
          moves.hangUp(them.sid);
        })
        .catch(() => undefined);
    },

    cancel(identity: string, callSid: string): Promise<void> {
      const { live } = ownConsult(identity, callSid);
      return legs.serial(live, async () => {
        const { me, them, consult } = ownConsult(identity, callSid);
        stopRinging(consult);
        if (consult.callSid !== null) moves.hangUp(consult.callSid);
        await backToCall(live, me, them);
        deps.tell(me.sid, {
          event: 'consultEnded',
          reason: `You cancelled the transfer to ${consult.targetName}.`,
        });
      });
    },

    /** A call to the target progressed: answered, or over (before the hand-over, or after it). */
    progress(liveId: string, callSid: string, status: string): void {
      // The call's first leg may have left it (parked, picked up by another, transferred on): the
      // call is found by its id among the legs still on it.
      const live = legs.bySid.get(liveId) ?? legs.byId(liveId) ?? legs.bySid.get(callSid);
      const consult = live?.consult;
      // The colleague is on a call from their answer until theirs ends, whatever became of it.
      if (FINAL.includes(status)) deps.calls.legEnded(callSid);
      if (!live) return;
      const ours = consult && (consult.callSid === callSid || consult.ringing.has(callSid));
      if (!consult || !ours) {
        if (FINAL.includes(status)) legs.ended(callSid);
        return;
      }
      const me = live.sides.find((s) => s.sid === consult.by);
      if (status === 'in-progress') {
        const identity = consult.ringing.get(callSid);
        if (identity === undefined) return;
        // The first to answer is talked to; the others stop ringing.
        consult.ringing.delete(callSid);
        stopRinging(consult);
        consult.callSid = callSid;
        consult.identity = identity;
        consult.name = deps.nameOf(identity);
        // They are on a call now (routing skips them) until theirs ends.
        deps.calls.legAnswered(identity, callSid);
        if (me) deps.tell(me.sid, { event: 'consultAnswered', name: consult.name });
        return;
      }
      if (!FINAL.includes(status) || !me) return;
      if (consult.callSid !== callSid) {
        // One of the calls ringing is over unanswered: the turn ends with the last of them.
        consult.ringing.delete(callSid);
        if (consult.ringing.size === 0 && !consult.placing) turnOver(live, consult, me, status);
        return;
      }
      void legs.serial(live, () => ended(live, consult, me, `${consult.name} hung up.`));
    },
  };
}
