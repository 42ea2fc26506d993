/**
 * How control.ts changes a live call through Twilio's Voice API: the TwiML a moved leg is given, and
 * the REST requests that give it.
 *
 * - A leg gets new TwiML with the Call resource's update (`Twiml=`,
 *   https://www.twilio.com/docs/voice/api/call-resource#update-a-call-resource), or, for a ring
 *   (which grows with the people it rings, past the 4,000 characters inline TwiML may have), a URL of
 *   this server that answers it (`Url=`, TWILIO_PATHS.ring, signed as every webhook); a leg ends with
 *   `Status=completed` (in progress) or `Status=canceled` (still ringing).
 * - A `<Dial>`'s parent that is changed hangs its child up; a child that is changed leaves the
 *   bridge, and its parent's `<Dial>` ends and asks the action URL
 *   (https://www.twilio.com/docs/voice/twiml/dial#action), which answers with the TwiML kept for it
 *   (`Live.pending`). So the child always moves first.
 * - Nobody's leaving ends a conference (`endConferenceOnExit="false"` throughout): a leg moved out
 *   must not take the other with it; a leg that hangs up is reported by its status callback, and
 *   the one left alone is hung up then (live-calls.ts).
 * - Two legs that wait apart or talk meet in a conference
 *   (https://www.twilio.com/docs/voice/twiml/conference): before a participant with
 *   `startConferenceOnEnter="true"` joins, each hears its own `waitUrl` (`""`: silence); after, they
 *   talk, and a participant is held with `Hold`/`HoldUrl`
 *   (https://www.twilio.com/docs/voice/api/conference-participant-resource#update-a-participant-resource).
 * - A colleague is rung from a leg with `<Dial><Client>` (custom parameters as `<Parameter>`), or,
 *   for a call of their own (an attended transfer), with a call placed through the Calls resource
 *   (https://www.twilio.com/docs/voice/api/call-resource#create-a-call-resource).
 */
import { randomBytes } from 'node:crypto';
import { TWILIO_PATHS } from '../../src/contracts/api';
import { voiceIdentityOf } from '../../src/contracts/voice-identity';
import { CallControlError } from './refusals';
import type { TwilioClient } from '../twilio/client';
import type { Live, Side } from './live-calls';
import { Twiml } from './twiml-writer';
import { dialSeconds } from './twiml';

/**
 * Twilio's own hold music, as its documentation's examples use it: a static MP3 file, so it is asked
 * with GET (`waitMethod="GET"`): "Use GET when waitUrl points directly to a static WAV or MP3 file"
 * (https://www.twilio.com/docs/api/errors/13234, and the `<Conference>` page's waitMethod,
 * https://www.twilio.com/docs/voice/twiml/conference#attributes-waitMethod). A waitUrl is asked with
 * POST by default, which a static file host refuses: the caller would hear silence. GET rather than
 * music TwiML of the app's own: Twilio fetches the file once and caches it, with no request to this
 * server per waiting caller (one that fails or is late would be silence too). As a participant's
 * `HoldUrl` it is asked with `HoldMethod`'s default, GET
 * (https://www.twilio.com/docs/voice/api/conference-participant-resource). The twin plays its
 * built-in music for it.
 */
export const HOLD_MUSIC = 'http://com.twilio.music.classical.s3.amazonaws.com/BusyStrings.mp3';

export const HANG_UP = new Twiml().hangup().toString();

/** `<Dial><Conference>` with the attributes given (`beep` off: nobody hears tones on a move). */
export function conference(
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
          // A static file is asked with GET (HOLD_MUSIC); `""` asks nothing.
          ...(attrs.waitUrl ? { waitMethod: 'GET' } : {}),
        },
      },
    ])
    .toString();
}

/**
 * A room of its own for each hold, park and consult: a conference named again while a participant
 * is still in it is the same, already started conference, and "waitUrl … play[s] … until the
 * conference starts" (https://www.twilio.com/docs/voice/twiml/conference#attributes-waitUrl), so a
 * caller parked again in a room reused after a pick-up would hear nothing.
 */
export const roomName = (kind: 'hold' | 'park' | 'consult'): string =>
  `${kind}-${randomBytes(8).toString('hex')}`;

export type Moves = ReturnType<typeof createMoves>;

/**
 * What a moved leg runs: inline TwiML (the call update's `Twiml`, at most 4,000 characters:
 * https://www.twilio.com/docs/api/errors/32018), or a URL of this server that answers it (`Url`).
 */
export type Next = string | { url: string };

export function createMoves(deps: {
  client: TwilioClient;
  publicUrl: () => string;
  bySid: ReadonlyMap<string, Live>;
  log: (message: string) => void;
}) {
  const { client, log } = deps;
  const url = (path: string, query: Record<string, string> = {}): string => {
    const q = new URLSearchParams(query).toString();
    return `${deps.publicUrl()}${path}${q ? `?${q}` : ''}`;
  };
  const said = (err: unknown): string => (err instanceof Error ? err.message : String(err));

  /**
   * Gives a live leg new TwiML: inline, or served by this server at a URL (`{ url }`, asked with a
   * signed POST) when it may be long; refused (the call has ended) as 404, as a call not known is.
   */
  async function redirect(callSid: string, next: Next): Promise<void> {
    const live = deps.bySid.get(callSid);
    if (live) live.moved = true;
    try {
      await client
        .calls(callSid)
        .update(typeof next === 'string' ? { twiml: next } : { url: next.url, method: 'POST' });
    } catch (err) {
      log(`call ${callSid}: the change was refused: ${said(err)}`);
      throw new CallControlError(404, 'no_such_call', 'This call has ended.');
    }
  }

  /** Ends a leg (canceled while it rings), whatever it does now; a leg already gone is no error. */
  const hangUp = (callSid: string, ringing = false): void =>
    void client
      .calls(callSid)
      .update({ status: ringing ? 'canceled' : 'completed' })
      .catch(() => undefined);

  return {
    url,
    redirect,
    hangUp,

    /**
     * Gives `mover` new TwiML and lets `leaver` go: a parent moved hangs its child up; a child moved
     * ends its parent's `<Dial>`, whose action then hangs the parent up; in a conference the leaver
     * is hung up here.
     */
    async moveAway(live: Live, mover: Side, leaver: Side, next: Next): Promise<void> {
      if (live.parent !== null && live.parent !== mover.sid) live.pending.set(live.parent, HANG_UP);
      await redirect(mover.sid, next);
      if (live.parent === null) hangUp(leaver.sid);
      live.parent = null;
    },

    /**
     * Both legs into a conference that does not start: `held` waits with the music, `holder` in
     * silence (or goes where `holderTwiml` says: an attended transfer's own conference). The child
     * moves first; its parent follows at its `<Dial>`'s action. A parent is never redirected while
     * its child's redirect may still be pending: Twilio applies an update after answering it, and a
     * parent's new TwiML ends its `<Dial>`, hanging up a child not yet moved
     * (https://www.twilio.com/docs/voice/api/call-resource#update-a-call-resource).
     */
    async holdApart(live: Live, holder: Side, held: Side, holderTwiml?: string): Promise<void> {
      const room = roomName('hold');
      const twimlOf = (side: Side): string =>
        side === holder && holderTwiml !== undefined
          ? holderTwiml
          : conference(room, {
              start: false,
              endOnExit: false,
              waitUrl: side === held ? HOLD_MUSIC : '',
            });
      if (live.parent !== null) {
        const child = live.sides.find((s) => s.sid !== live.parent)!;
        const parent = live.sides.find((s) => s.sid === live.parent)!;
        live.pending.set(parent.sid, twimlOf(parent));
        await redirect(child.sid, twimlOf(child));
      } else {
        await redirect(held.sid, twimlOf(held));
        await redirect(holder.sid, twimlOf(holder));
      }
      live.parent = null;
      live.room = room;
      live.started = false;
    },

    /** The holder joins the room again, starting it: they talk. */
    async rejoin(live: Live, holder: Side): Promise<void> {
      await redirect(holder.sid, conference(live.room!, { start: true, endOnExit: false }));
      live.started = true;
    },

    /** Holds or resumes a participant of the call's started conference. */
    async holdParticipant(live: Live, side: Side, hold: boolean): Promise<void> {
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
        log(`call ${live.id}: hold in ${live.room}: ${said(err)}`);
        throw new CallControlError(404, 'no_such_call', 'This call has ended.');
      }
    },

    /** `<Dial><Client>`s ringing `identities` for `seconds`, its action coming back to control.ts. */
    ring(
      live: Live,
      identities: readonly string[],
      seconds: number,
      params: Record<string, string>,
    ): string {
      const attrs = {
        statusCallback: url(TWILIO_PATHS.leg),
        statusCallbackEvent: ['answered', 'completed'],
      };
      return new Twiml()
        .dial(
          {
            timeout: dialSeconds(seconds),
            answerOnBridge: true,
            action: url(TWILIO_PATHS.after, { call: live.id }),
          },
          identities.map((identity) => ({
            client: voiceIdentityOf(identity),
            attrs,
            parameters: params,
          })),
        )
        .toString();
    },

    /**
     * Places a call to `identity`'s browsers from `from`, running `twiml` once answered; its
     * progress comes back to TWILIO_PATHS.consult. Resolves with its CallSid.
     */
    async place(
      live: Live,
      identity: string,
      from: string,
      seconds: number,
      twiml: string,
    ): Promise<string> {
      try {
        const call = await client.calls.create({
          to: `client:${voiceIdentityOf(identity)}`,
          from: `client:${voiceIdentityOf(from)}`,
          twiml,
          timeout: seconds,
          statusCallback: url(TWILIO_PATHS.consult, { call: live.id }),
          statusCallbackEvent: ['answered', 'completed'],
        });
        return call.sid;
      } catch (err) {
        log(`call ${live.id}: calling ${identity} failed: ${said(err)}`);
        throw new CallControlError(409, 'unavailable', 'The call could not be placed.');
      }
    },
  };
}
