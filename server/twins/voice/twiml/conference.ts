/**
 * `<Dial><Conference>` on the twin, with its media (https://www.twilio.com/docs/voice/twiml/conference),
 * and the REST changes to its participants
 * (https://www.twilio.com/docs/voice/api/conference-participant-resource):
 * - the conference named by the noun in the call's account is joined, or made; the participant is
 *   listed by the REST API (connected, not held) for as long as it is in;
 * - until the conference starts (a participant with `startConferenceOnEnter="true"` joins), each
 *   participant hears its own `waitUrl` looped: Twilio's hold music when absent, silence for
 *   `waitUrl=""`, the URL's audio or the `<Play>`/`<Say>`/`<Pause>` of its TwiML otherwise, asked
 *   with `waitMethod` (POST by default; the page advises GET for static audio files: Twilio's
 *   music files asked with a POST are silence, sounds.ts); the default music is asked with GET. A
 *   participant who joins once the conference has started (a late joiner) hears no `waitUrl`: it
 *   plays "until the conference starts" (the page's waitUrl);
 * - once started, two participants not on hold hear each other (their legs are bridged); one on hold
 *   (Participant `Hold=true`) hears its `HoldUrl` (Twilio's hold music when absent) and is not heard;
 *   a participant alone hears silence. The twin mixes no more than two: with three or more not on
 *   hold, the first two to join are bridged, the others hear silence (logged);
 * - a participant leaves when its call hangs up, is redirected ("the Participants endpoint will not
 *   return ... participants whose call has been modified to use new TwiML", the participant resource
 *   page), or is removed (Participant delete, "kick"):
 *   its `<Dial>` ends with `DialCallStatus=completed` and its TwiML goes on; when one with
 *   `endConferenceOnExit="true"` leaves, or the conference is ended (`Status=completed`), everyone
 *   leaves so; the conference is `completed` once its last participant is gone.
 * Not carried: `beep` (no tone is played), `muted`, `maxParticipants`, the conference's
 * statusCallback events, recording, coaching.
 */
import { bridge } from '../bridge';
import type { VoiceState, Room, Member } from '../model';
import type { TwinConference, TwinParticipant } from '../rest/resources';
import { app } from './call';
import type { DialNoun } from './parse';
import type { DialOutcome } from './run';
import { loopSound } from './sounds';
import { type AppCall } from '../model';
import { type RunScope } from '../model';

/** Twilio's default `waitUrl` and `holdUrl`: its hold music (played as the built-in music). */
export const TWILIO_HOLD_MUSIC = 'http://twimlets.com/holdmusic?Bucket=com.twilio.music.classical';

type ConferenceNoun = Extract<DialNoun, { kind: 'conference' }>;

/** The call joins the noun's conference until it leaves; resolves as its `<Dial>` ends. */
export function joinConference(
  vs: VoiceState,
  call: AppCall,
  noun: ConferenceNoun,
  run: RunScope,
): Promise<DialOutcome> {
  const mode = app(vs);
  const conference = mode.registry.conferenceNamed(call.fields.AccountSid ?? '', noun.name);
  const participant = mode.registry.join(conference, call.sid, {
    startConferenceOnEnter: noun.startConferenceOnEnter,
    endConferenceOnExit: noun.endConferenceOnExit,
  });
  let room = mode.rooms.get(conference.sid);
  if (!room) {
    room = { conference, members: new Map(), pair: null, toldCrowded: false };
    mode.rooms.set(conference.sid, room);
  }
  const joined = room;
  const joinedAt = vs.now();
  return new Promise<DialOutcome>((resolve) => {
    let left = false;
    let offStop = (): void => {};
    const member: Member = {
      call,
      participant,
      waitUrl: noun.waitUrl ?? TWILIO_HOLD_MUSIC,
      // "If you do not specify waitUrl, Twilio requests the default hold music with GET"
      // (https://www.twilio.com/docs/api/errors/13234).
      waitMethod: noun.waitUrl === null ? 'GET' : noun.waitMethod,
      hearing: '',
      leave() {
        if (left) return;
        left = true;
        offStop();
        joined.members.delete(call.sid);
        if (joined.pair && (joined.pair.a === member || joined.pair.b === member)) {
          joined.pair.unbridge();
          joined.pair = null;
        }
        if (!call.ended) call.leg?.stopPlaying();
        if (conference.participants.get(call.sid) === participant)
          mode.registry.leave(conference, participant);
        afterLeaving(vs, joined);
        const seconds = Math.round((vs.now() - joinedAt) / 1000);
        resolve({ status: 'completed', callSid: null, seconds });
      },
    };
    joined.members.set(call.sid, member);
    offStop = run.onStop(() => member.leave());
    if (!left) mix(vs, joined);
  });
}

/** After a participant left: everyone leaves a conference that ended; the rest hear anew. */
function afterLeaving(vs: VoiceState, room: Room): void {
  if (room.conference.status === 'completed') {
    for (const m of [...room.members.values()]) m.leave();
    closeRoom(vs, room);
    return;
  }
  mix(vs, room);
}

/** A conference over: its room goes, and the REST API forgets it a minute later (then 20404). */
function closeRoom(vs: VoiceState, room: Room): void {
  const mode = app(vs);
  if (mode.rooms.get(room.conference.sid) !== room) return;
  mode.rooms.delete(room.conference.sid);
  setTimeout(() => mode.registry.conferences.delete(room.conference.sid), 60_000).unref();
}

/** Sets what each member hears from the conference's state (started, who is held). */
export function mix(vs: VoiceState, room: Room): void {
  const started = room.conference.status === 'in-progress';
  const members = [...room.members.values()].filter((m) => !m.call.ended && m.call.leg);
  const talking = started ? members.filter((m) => !m.participant.hold) : [];
  if (talking.length > 2 && !room.toldCrowded) {
    room.toldCrowded = true;
    vs.log(
      `voice twin: conference ${room.conference.friendlyName} has ${talking.length} participants talking; the twin bridges the first two only`,
    );
  }
  const [a, b] = talking;
  if (room.pair && !(room.pair.a === a && room.pair.b === b)) {
    room.pair.unbridge();
    room.pair.a.hearing = '';
    room.pair.b.hearing = '';
    room.pair = null;
  }
  if (a && b && !room.pair) {
    room.pair = { a, b, unbridge: bridge(a.call.leg!, b.call.leg!) };
    a.hearing = 'bridge';
    b.hearing = 'bridge';
  }
  for (const m of members) {
    if (room.pair && (room.pair.a === m || room.pair.b === m)) continue;
    if (!started) hear(vs, m, 'wait', m.waitUrl, m.waitMethod);
    else if (m.participant.hold)
      hear(
        vs,
        m,
        'hold',
        m.participant.holdUrl ?? TWILIO_HOLD_MUSIC,
        m.participant.holdUrl === null ? 'GET' : m.participant.holdMethod,
      );
    else hear(vs, m, 'silence', '');
  }
}

/** Plays `url`'s sound looped to the member (silence at once, the sound once it is had). */
function hear(
  vs: VoiceState,
  m: Member,
  why: 'wait' | 'hold' | 'silence',
  url: string,
  method: 'GET' | 'POST' = 'GET',
): void {
  const key = why === 'silence' ? why : `${why} ${method} ${url}`;
  if (m.hearing === key) return;
  m.hearing = key;
  const leg = m.call.leg!;
  leg.play(null);
  if (why === 'silence') return;
  // A POST carries the call's fields, as a webhook does.
  void loopSound(vs, url, method === 'POST' ? { ...m.call.fields } : null).then((sound) => {
    if (m.hearing === key && sound && leg.state !== 'closed' && !m.call.ended) leg.play(sound);
  });
}

/** The REST API's changes to a conference's members. */
export const conferenceEngine = (vs: VoiceState) => ({
  /** A participant held or resumed (its `hold` and `holdUrl` are already set). */
  hold(conference: TwinConference): void {
    const room = app(vs).rooms.get(conference.sid);
    if (room) mix(vs, room);
  },
  /** A participant removed: it leaves, and its TwiML goes on. */
  remove(conference: TwinConference, participant: TwinParticipant): void {
    app(vs).rooms.get(conference.sid)?.members.get(participant.callSid)?.leave();
  },
  /** The conference ended: everyone leaves. */
  end(conference: TwinConference): void {
    const room = app(vs).rooms.get(conference.sid);
    if (!room) return;
    conference.status = 'completed';
    for (const m of [...room.members.values()]) m.leave();
    closeRoom(vs, room);
  },
});
