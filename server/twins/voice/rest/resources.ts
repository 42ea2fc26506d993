/**
 * The part of Twilio's Voice REST API (`https://api.twilio.com/2010-04-01`) that the app calls, as
 * the voice twin's registry of calls, conferences and participants. Resources, fields and errors
 * follow Twilio's reference:
 * - Call: https://www.twilio.com/docs/voice/api/call-resource (update with `Twiml`, `Url`,
 *   `Method` or `Status=completed|canceled`; a call that has ended cannot be redirected: 21220);
 * - Conference: https://www.twilio.com/docs/voice/api/conference-resource (list filtered by
 *   `FriendlyName` and `Status`; update `Status=completed` ends it, `AnnounceUrl` plays to all);
 * - Participant: https://www.twilio.com/docs/voice/api/conference-participant-resource (update
 *   `Hold` with `HoldUrl`/`HoldMethod`, `Muted`, `AnnounceUrl`; create adds a call by `From`/`To`
 *   with `Label`, `StartConferenceOnEnter`, `EndConferenceOnExit`; delete removes it).
 * What the audio does is the twin's call engine's ({@link VoiceEngine}); this module keeps the
 * state the REST answers show and refuses what Twilio refuses.
 */
import { randomBytes } from 'node:crypto';
import type { Callback } from '../twiml/parse';

export type CallStatus =
  'queued' | 'ringing' | 'in-progress' | 'completed' | 'busy' | 'failed' | 'no-answer' | 'canceled';

export interface TwinCall {
  sid: string;
  accountSid: string;
  parentCallSid: string | null;
  from: string;
  to: string;
  direction: 'inbound' | 'outbound-api' | 'outbound-dial';
  status: CallStatus;
  created: number;
  started: number | null;
  ended: number | null;
}

export interface TwinParticipant {
  callSid: string;
  conferenceSid: string;
  label: string | null;
  hold: boolean;
  holdUrl: string | null;
  /** How `holdUrl` is asked: `HoldMethod`, GET by default. */
  holdMethod: 'GET' | 'POST';
  muted: boolean;
  startConferenceOnEnter: boolean;
  endConferenceOnExit: boolean;
  status: 'queued' | 'connecting' | 'ringing' | 'connected' | 'complete' | 'failed';
}

export interface TwinConference {
  sid: string;
  accountSid: string;
  friendlyName: string;
  status: 'init' | 'in-progress' | 'completed';
  created: number;
  updated: number;
  participants: Map<string, TwinParticipant>;
}

/**
 * A log entry of the account (https://www.twilio.com/docs/voice/api/notification-resource): an error
 * Twilio met handling a call, such as a webhook not answered in time (11205).
 */
export interface TwinNotification {
  sid: string;
  accountSid: string;
  callSid: string | null;
  errorCode: number;
  messageText: string;
  requestUrl: string;
  requestMethod: 'GET' | 'POST';
  created: number;
}

/** What a REST change asks of the call engine (the media side of the twin). */
export interface VoiceEngine {
  /** Runs new TwiML (a document, or a URL to fetch) on a live call, dropping what it ran. */
  redirect(
    callSid: string,
    next: { twiml: string } | { url: string; method: 'GET' | 'POST' },
  ): void;
  /** Ends a call (a live one hangs up; a ringing one is canceled). */
  hangUp(callSid: string): void;
  /**
   * Places a new call (`To` a `client:` identity or a number) that runs `next` once answered,
   * ringing for `timeout` seconds and telling `statusCallback` of the events it names.
   */
  place(
    call: TwinCall,
    next: { twiml: string } | { url: string; method: 'GET' | 'POST' },
    options: { statusCallback: Callback | null; timeout: number },
  ): void;
  /** Holds (with `holdUrl`'s audio, or the default music) or resumes a participant. */
  hold(conference: TwinConference, participant: TwinParticipant): void;
  /** Takes a participant out of its conference (its call ends, as Twilio's delete does). */
  remove(conference: TwinConference, participant: TwinParticipant): void;
  /** Dials `to` into a conference as a new participant. */
  addParticipant(conference: TwinConference, call: TwinCall, participant: TwinParticipant): void;
  /** Ends a conference: every participant leaves. */
  endConference(conference: TwinConference): void;
  /** Sends a user-defined message (`content`, JSON text) to the Voice SDK on a live call. */
  message(callSid: string, content: string): void;
}

/** A refusal with Twilio's status, code and message. */
export class RestError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'RestError';
  }
}

export const sid = (prefix: string): string => prefix + randomBytes(16).toString('hex');

const ENDED: readonly CallStatus[] = ['completed', 'busy', 'failed', 'no-answer', 'canceled'];
export const hasEnded = (call: TwinCall): boolean => ENDED.includes(call.status);

/** The registry: every call and conference the twin knows, as its REST API shows them. */
export class VoiceRegistry {
  readonly calls = new Map<string, TwinCall>();
  readonly conferences = new Map<string, TwinConference>();
  /** The account's log of errors, oldest first (the last 1,000). */
  readonly notifications: TwinNotification[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** Records an error met handling a call (a webhook that failed). */
  notice(entry: Omit<TwinNotification, 'sid' | 'created'>): TwinNotification {
    const notification = { ...entry, sid: sid('NO'), created: this.now() };
    this.notifications.push(notification);
    if (this.notifications.length > 1000) this.notifications.shift();
    return notification;
  }

  addCall(
    fields: Omit<TwinCall, 'sid' | 'created' | 'started' | 'ended'> & { sid?: string },
  ): TwinCall {
    const call: TwinCall = {
      ...fields,
      sid: fields.sid ?? sid('CA'),
      created: this.now(),
      started: null,
      ended: null,
    };
    this.calls.set(call.sid, call);
    return call;
  }

  setStatus(call: TwinCall, status: CallStatus): void {
    if (hasEnded(call)) return;
    call.status = status;
    if (status === 'in-progress') call.started = this.now();
    if (hasEnded(call)) {
      call.ended = this.now();
      for (const conference of this.conferences.values()) {
        const p = conference.participants.get(call.sid);
        if (p) this.leave(conference, p);
      }
    }
  }

  /** The conference named `friendlyName` that is not over, made if there is none (as `<Conference>` does). */
  conferenceNamed(accountSid: string, friendlyName: string): TwinConference {
    for (const c of this.conferences.values())
      if (
        c.accountSid === accountSid &&
        c.friendlyName === friendlyName &&
        c.status !== 'completed'
      )
        return c;
    const conference: TwinConference = {
      sid: sid('CF'),
      accountSid,
      friendlyName,
      status: 'init',
      created: this.now(),
      updated: this.now(),
      participants: new Map(),
    };
    this.conferences.set(conference.sid, conference);
    return conference;
  }

  join(
    conference: TwinConference,
    callSid: string,
    options: Partial<
      Pick<TwinParticipant, 'label' | 'startConferenceOnEnter' | 'endConferenceOnExit' | 'muted'>
    > = {},
  ): TwinParticipant {
    const participant: TwinParticipant = {
      callSid,
      conferenceSid: conference.sid,
      label: options.label ?? null,
      hold: false,
      holdUrl: null,
      holdMethod: 'GET',
      muted: options.muted ?? false,
      startConferenceOnEnter: options.startConferenceOnEnter ?? true,
      endConferenceOnExit: options.endConferenceOnExit ?? false,
      status: 'connected',
    };
    conference.participants.set(callSid, participant);
    if (participant.startConferenceOnEnter && conference.status === 'init')
      conference.status = 'in-progress';
    conference.updated = this.now();
    return participant;
  }

  /** A participant leaves; the conference ends when it empties or when an `endConferenceOnExit` one leaves. */
  leave(conference: TwinConference, participant: TwinParticipant): void {
    participant.status = 'complete';
    conference.participants.delete(participant.callSid);
    conference.updated = this.now();
    if (conference.participants.size === 0 || participant.endConferenceOnExit)
      conference.status = 'completed';
  }

  call(accountSid: string, callSid: string): TwinCall {
    const call = this.calls.get(callSid);
    // Another account's call is not found, as on Twilio (nothing tells it exists).
    if (!call || call.accountSid !== accountSid)
      throw new RestError(
        404,
        20404,
        `The requested resource /2010-04-01/Accounts/${accountSid}/Calls/${callSid}.json was not found`,
      );
    return call;
  }

  conference(accountSid: string, conferenceSid: string): TwinConference {
    const conference = this.conferences.get(conferenceSid);
    if (!conference || conference.accountSid !== accountSid)
      throw new RestError(
        404,
        20404,
        `The requested resource /2010-04-01/Accounts/${accountSid}/Conferences/${conferenceSid}.json was not found`,
      );
    return conference;
  }

  participant(conference: TwinConference, callSidOrLabel: string): TwinParticipant {
    const found =
      conference.participants.get(callSidOrLabel) ??
      [...conference.participants.values()].find((p) => p.label === callSidOrLabel);
    if (!found)
      throw new RestError(
        404,
        20404,
        `The requested resource /2010-04-01/Accounts/${conference.accountSid}/Conferences/${conference.sid}/Participants/${callSidOrLabel}.json was not found`,
      );
    return found;
  }
}
