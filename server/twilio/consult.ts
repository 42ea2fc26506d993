/**
 * The attended transfer on Twilio: the transferrer talks to the colleague first, then hands the call
 * over or takes it back. Through the Voice API only (moves.ts):
 *
 * - start: the waiting side is held (as a hold does: alone in the call's conference, with the music);
 *   the transferrer's leg moves to a conference of its own and waits there in silence; a call is
 *   placed to the colleague's browsers (the Calls resource), whose TwiML joins that conference and
 *   starts it. Its status callback (TWILIO_PATHS.consult) says when they answer or go.
 * - complete: the waiting side joins the transferrer's conference (it is started: they talk), and
 *   the transferrer's leg ends.
 * - cancel, or the colleague declining, not answering or hanging up first: their call ends and the
 *   transferrer joins the waiting side again, as a resume does; the page is told why.
 */
import { CallControlError } from '../twins/voice/model';
import type { CallLog } from './calls';
import type { Consult, LiveCalls, Live, Side } from './live-calls';
import { conference, roomName, type Moves } from './moves';

const FINAL = ['completed', 'busy', 'failed', 'no-answer', 'canceled'];

export function createConsult(deps: {
  legs: LiveCalls;
  moves: Moves;
  calls: CallLog;
  tell: (callSid: string, content: Record<string, unknown>) => void;
  ringSeconds: number;
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

  return {
    async start(live: Live, me: Side, them: Side, identity: string, name: string): Promise<void> {
      if (live.heldBy !== me.sid) {
        if (live.room === null || !live.started) await moves.holdApart(live, me, them);
        else await moves.holdParticipant(live, them, true);
        live.heldBy = me.sid;
        legs.trail(live, { action: 'held', by: me.identity ?? '', at: now() });
        legs.tellHeld(them, me.name, 'held');
      }
      const room = roomName('consult');
      const consult: Consult = { by: me.sid, identity, name, room, callSid: null, answered: false };
      live.consult = consult;
      try {
        await moves.redirect(
          me.sid,
          conference(room, { start: false, endOnExit: false, waitUrl: '' }),
        );
        consult.callSid = await moves.place(
          live,
          identity,
          me.identity ?? '',
          deps.ringSeconds,
          conference(room, { start: true, endOnExit: false }),
        );
      } catch (err) {
        await backToCall(live, me, them).catch(() => undefined);
        throw err;
      }
    },

    complete(identity: string, callSid: string): Promise<void> {
      const { live } = ownConsult(identity, callSid);
      return legs.serial(live, async () => {
        const { me, them, consult } = ownConsult(identity, callSid);
        if (!consult.answered || consult.callSid === null)
          throw new CallControlError(
            409,
            'no_transfer',
            `${consult.name} has not answered yet: wait, or cancel the transfer.`,
          );
        // The transferrer leaves first (the colleague waits a moment alone), then the caller joins.
        const target: Side = {
          sid: consult.callSid,
          identity: consult.identity,
          name: consult.name,
        };
        legs.bySid.delete(me.sid);
        moves.hangUp(me.sid);
        await moves.redirect(them.sid, conference(consult.room, { start: true, endOnExit: false }));
        legs.bySid.set(target.sid, live);
        live.sides = [them, target];
        live.room = consult.room;
        live.started = true;
        live.heldBy = null;
        live.consult = null;
        const state = legs.stateOf(live);
        if (state) state.answeredBy = consult.identity;
        legs.trail(live, {
          action: 'transferred',
          by: identity,
          to: consult.identity,
          at: now(),
        });
        legs.tellHeld(them, target.name, 'resumed');
        legs.party(them, target);
        legs.party(target, them);
      });
    },

    cancel(identity: string, callSid: string): Promise<void> {
      const { live } = ownConsult(identity, callSid);
      return legs.serial(live, async () => {
        const { me, them, consult } = ownConsult(identity, callSid);
        if (consult.callSid !== null) moves.hangUp(consult.callSid, !consult.answered);
        await backToCall(live, me, them);
      });
    },

    /** The target's call: answered, or over before the transfer completed (or after: a side's end). */
    progress(liveId: string, callSid: string, status: string): void {
      const live = legs.bySid.get(liveId) ?? legs.bySid.get(callSid);
      const consult = live?.consult;
      // The colleague is on a call from their answer until theirs ends, whatever became of it.
      if (FINAL.includes(status)) deps.calls.legEnded(callSid);
      if (!live) return;
      if (!consult || consult.callSid !== callSid) {
        if (FINAL.includes(status)) legs.ended(callSid);
        return;
      }
      const me = live.sides.find((s) => s.sid === consult.by);
      if (status === 'in-progress') {
        consult.answered = true;
        // They are on a call now (routing skips them) until theirs ends.
        deps.calls.legAnswered(consult.identity, callSid);
        if (me) deps.tell(me.sid, { event: 'consultAnswered' });
        return;
      }
      if (!FINAL.includes(status) || !me) return;
      const them = live.sides.find((s) => s !== me);
      const reason = consult.answered
        ? `${consult.name} hung up.`
        : status === 'busy'
          ? `${consult.name} declined.`
          : `${consult.name} did not answer.`;
      void legs.serial(live, async () => {
        if (live.consult !== consult) return;
        if (them) await backToCall(live, me, them).catch(() => undefined);
        else live.consult = null;
        deps.tell(me.sid, { event: 'consultEnded', reason });
      });
    },
  };
}
