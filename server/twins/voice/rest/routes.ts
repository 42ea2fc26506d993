/**
 * The voice twin's REST API over HTTP, answering the `twilio` package as api.twilio.com does:
 * HTTP Basic auth with the account SID and auth token (or an API key SID and secret) checked here
 * (20003 otherwise), form-encoded bodies, JSON answers with Twilio's snake_case fields and
 * `{code, message, more_info, status}` errors (https://www.twilio.com/docs/usage/twilios-response).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import {
  hasEnded,
  RestError,
  sid,
  type TwinCall,
  type TwinConference,
  type TwinNotification,
  type TwinParticipant,
  type VoiceEngine,
  type VoiceRegistry,
} from './resources';
import { parseTwiml, TwimlError, type Callback } from '../twiml/parse';

export interface Credentials {
  accountSid: string;
  authToken: string;
  /** API keys (SK…) with their secrets, also accepted as the account's. */
  apiKeys?: Readonly<Record<string, string>>;
}

const BASE = '/2010-04-01/Accounts/';
const BODY_LIMIT = 64 * 1024;

const date = (ms: number | null): string | null =>
  ms === null ? null : new Date(ms).toUTCString().replace('GMT', '+0000');

function callJson(c: TwinCall) {
  return {
    sid: c.sid,
    account_sid: c.accountSid,
    parent_call_sid: c.parentCallSid,
    from: c.from,
    to: c.to,
    direction: c.direction,
    status: c.status,
    date_created: date(c.created),
    date_updated: date(c.ended ?? c.started ?? c.created),
    start_time: date(c.started),
    end_time: date(c.ended),
    duration:
      c.started !== null && c.ended !== null
        ? String(Math.round((c.ended - c.started) / 1000))
        : null,
    api_version: '2010-04-01',
    uri: `${BASE}${c.accountSid}/Calls/${c.sid}.json`,
  };
}

function notificationJson(n: TwinNotification) {
  return {
    sid: n.sid,
    account_sid: n.accountSid,
    call_sid: n.callSid,
    api_version: '2010-04-01',
    error_code: String(n.errorCode),
    log: '0',
    message_date: date(n.created),
    message_text: n.messageText,
    more_info: `https://www.twilio.com/docs/errors/${n.errorCode}`,
    request_method: n.requestMethod,
    request_url: n.requestUrl,
    date_created: date(n.created),
    date_updated: date(n.created),
    uri: `${BASE}${n.accountSid}/Notifications/${n.sid}.json`,
  };
}

function conferenceJson(c: TwinConference) {
  return {
    sid: c.sid,
    account_sid: c.accountSid,
    friendly_name: c.friendlyName,
    status: c.status,
    date_created: date(c.created),
    date_updated: date(c.updated),
    api_version: '2010-04-01',
    uri: `${BASE}${c.accountSid}/Conferences/${c.sid}.json`,
  };
}

function participantJson(accountSid: string, p: TwinParticipant) {
  return {
    account_sid: accountSid,
    call_sid: p.callSid,
    conference_sid: p.conferenceSid,
    label: p.label,
    hold: p.hold,
    muted: p.muted,
    coaching: false,
    start_conference_on_enter: p.startConferenceOnEnter,
    end_conference_on_exit: p.endConferenceOnExit,
    status: p.status,
    uri: `${BASE}${accountSid}/Conferences/${p.conferenceSid}/Participants/${p.callSid}.json`,
  };
}

/** A list answer as Twilio pages it: one page holding everything (the twin's lists are short). */
function page(key: string, url: URL, items: unknown[]) {
  const uri = url.pathname + url.search;
  return {
    [key]: items,
    first_page_uri: uri,
    next_page_uri: null,
    previous_page_uri: null,
    page: 0,
    page_size: Math.max(50, items.length),
    start: 0,
    end: Math.max(0, items.length - 1),
    uri,
  };
}

/** Twilio's error answer, `{code, message, more_info, status}` (twilios-response, above). */
export function sendRestError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(
    JSON.stringify({
      code,
      message,
      more_info: `https://www.twilio.com/docs/errors/${code}`,
      status,
    }),
  );
}

/** Whether the request's Basic auth is the account's (SID and auth token) or one of its API keys. */
export function authorised(req: IncomingMessage, creds: Credentials): boolean {
  const header = req.headers.authorization ?? '';
  if (!header.startsWith('Basic ')) return false;
  const [user = '', ...rest] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':');
  const secret = rest.join(':');
  const expected = user === creds.accountSid ? creds.authToken : creds.apiKeys?.[user];
  if (expected === undefined) return false;
  const a = Buffer.from(secret);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A form-encoded body, refused 413 (20001) past `limit` bytes. */
export async function readForm(
  req: IncomingMessage,
  limit: number = BODY_LIMIT,
): Promise<URLSearchParams> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new RestError(413, 20001, 'The request body is too large');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

const bool = (form: URLSearchParams, name: string): boolean | undefined => {
  const v = form.get(name);
  if (v === null) return undefined;
  if (v === 'true' || v === 'True') return true;
  if (v === 'false' || v === 'False') return false;
  throw new RestError(400, 20001, `${name} must be true or false`);
};

const method = (form: URLSearchParams, name: string): 'GET' | 'POST' => {
  const v = form.get(name) ?? 'POST';
  if (v !== 'GET' && v !== 'POST') throw new RestError(400, 20001, `${name} must be GET or POST`);
  return v;
};

/** The longest inline `Twiml` a call create or update takes. */
export const MAX_INLINE_TWIML = 4000;

function nextOf(
  form: URLSearchParams,
): { twiml: string } | { url: string; method: 'GET' | 'POST' } | null {
  const twiml = form.get('Twiml');
  const url = form.get('Url');
  if (twiml !== null && url !== null)
    throw new RestError(400, 21205, 'Give Url or Twiml, not both');
  if (twiml !== null) {
    // "Twiml size exceeded maximum allowed value of 4000 characters"
    // (https://www.twilio.com/docs/api/errors/32018; the call resource's `Twiml`: "Max 4000
    // characters", https://www.twilio.com/docs/voice/api/call-resource), on a create and an update.
    if (twiml.length > MAX_INLINE_TWIML)
      throw new RestError(
        400,
        32018,
        `Twiml size exceeded maximum allowed value of ${MAX_INLINE_TWIML} characters (${twiml.length})`,
      );
    // Twilio checks inline TwiML before it changes anything: a document that does not parse is
    // refused with the TwiML error's code (12100 XML, 12102 root, 12200 schema).
    try {
      parseTwiml(twiml);
    } catch (err) {
      if (err instanceof TwimlError)
        throw new RestError(400, err.code, `Twiml is invalid: ${err.message}`);
      throw err;
    }
    return { twiml };
  }
  if (url !== null) {
    try {
      new URL(url);
    } catch {
      throw new RestError(400, 21205, `Url is not a valid URL: ${url}`);
    }
    return { url, method: method(form, 'Method') };
  }
  return null;
}

/** `To` and `From` of a call to place: 21201 without a called party, 21603 without a caller. */
function parties(form: URLSearchParams): { to: string; from: string } {
  const to = form.get('To');
  const from = form.get('From');
  if (!to) throw new RestError(400, 21201, 'No called number is specified');
  if (!from) throw new RestError(400, 21603, "A 'From' phone number is required.");
  return { to, from };
}

const CALL_EVENTS = ['initiated', 'ringing', 'answered', 'completed'] as const;

/** A call with a Voice SDK on it: placed by one (`From` a client), or ringing one (`To` a client). */
const isSdkLeg = (call: TwinCall): boolean =>
  call.to.startsWith('client:') || call.from.startsWith('client:');

/**
 * A placed call's `StatusCallback`, `StatusCallbackMethod` and `StatusCallbackEvent` (repeated, or
 * space-separated); `completed` alone when no event is named
 * (https://www.twilio.com/docs/voice/api/call-resource#statuscallbackevent).
 */
function statusCallback(form: URLSearchParams): Callback | null {
  const url = form.get('StatusCallback');
  if (url === null || url === '') return null;
  const events = form
    .getAll('StatusCallbackEvent')
    .flatMap((e) => e.split(/[\s,]+/))
    .filter(Boolean);
  for (const e of events)
    if (!(CALL_EVENTS as readonly string[]).includes(e))
      throw new RestError(400, 20001, `StatusCallbackEvent ${e} is not a call event`);
  return {
    url,
    method: method(form, 'StatusCallbackMethod'),
    events: (events.length > 0 ? events : ['completed']) as Callback['events'],
  };
}

/** A placed call's `Timeout`: seconds it rings, 60 by default, at most 600. */
function timeout(form: URLSearchParams): number {
  const v = form.get('Timeout');
  if (v === null) return 60;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1 || n > 600)
    throw new RestError(400, 20001, `Timeout must be a whole number of seconds from 1 to 600`);
  return n;
}

export interface VoiceRestOptions {
  registry: VoiceRegistry;
  engine: VoiceEngine;
  credentials: Credentials;
  /**
   * The account's phone numbers: a call placed to a number must come `From` one of them (21210, as
   * Twilio refuses a number not bought or verified: https://www.twilio.com/docs/errors/21210).
   */
  phoneNumbers?: () => readonly string[];
  /** Recordings made by `<Record>`: where each one's WAV file is, and forgetting one. */
  recordings?: {
    file(recordingSid: string): string | null;
    remove(recordingSid: string): boolean;
  };
}

/**
 * A recording's media (https://www.twilio.com/docs/voice/api/recording#fetch-a-recording-media-file):
 * `.wav` (Twilio's default format) is served; `.mp3` is refused here, the twin having no MP3 encoder.
 */
const RECORDING =
  /^\/2010-04-01\/Accounts\/(AC[0-9a-f]{32})\/Recordings\/(RE[0-9a-f]{32})(\.wav|\.mp3|\.json)?$/;

/** Answers a request under /2010-04-01/; returns false for any other path. */
export function voiceRest(options: VoiceRestOptions) {
  const { registry, engine, credentials, phoneNumbers = () => [] } = options;

  /** A new call the API places: queued, `outbound-api`. */
  const outbound = (account: string, to: string, from: string): TwinCall =>
    registry.addCall({
      accountSid: account,
      parentCallSid: null,
      from,
      to,
      direction: 'outbound-api',
      status: 'queued',
    });

  async function route(req: IncomingMessage, path: string[]): Promise<[number, unknown]> {
    const [account, collection, id, sub, subId] = path;
    // Credentials for one account asking for another's resources: Twilio answers 20003.
    if (account !== credentials.accountSid) throw new RestError(401, 20003, 'Authenticate');
    const verb = req.method ?? 'GET';

    if (collection === 'Calls' && id === undefined && verb === 'POST') {
      const form = await readForm(req);
      const { to, from } = parties(form);
      const next = nextOf(form);
      if (!next) throw new RestError(400, 21205, 'Url or Twiml is required');
      const options = { statusCallback: statusCallback(form), timeout: timeout(form) };
      if (!to.startsWith('client:') && !phoneNumbers().includes(from))
        throw new RestError(
          400,
          21210,
          `The source phone number provided, ${from}, is not yet verified for your account. You may only make calls from phone numbers that you've verified or purchased from Twilio.`,
        );
      const call = outbound(account, to, from);
      engine.place(call, next, options);
      return [201, callJson(call)];
    }
    if (collection === 'Calls' && id === undefined && verb === 'GET') {
      // https://www.twilio.com/docs/voice/api/call-resource#read-multiple-call-resources: filtered
      // by `To`, `From`, `ParentCallSid` and `Status`, newest first.
      const url = new URL(req.url ?? '/', 'http://twin');
      const filter = (name: string, value: string): boolean => {
        const wanted = url.searchParams.get(name);
        return wanted === null || wanted === value;
      };
      const calls = [...registry.calls.values()]
        .filter(
          (c) =>
            c.accountSid === account &&
            filter('To', c.to) &&
            filter('From', c.from) &&
            filter('ParentCallSid', c.parentCallSid ?? '') &&
            filter('Status', c.status),
        )
        .sort((a, b) => b.created - a.created);
      // Twilio's list key is the resource's name in lower case.
      return [200, page(collection.toLowerCase(), url, calls.map(callJson))];
    }
    if (collection === 'Calls' && id !== undefined && sub === undefined) {
      const call = registry.call(account, id);
      if (verb === 'GET') return [200, callJson(call)];
      if (verb === 'POST') {
        const form = await readForm(req);
        const status = form.get('Status');
        const next = nextOf(form);
        if (status !== null) {
          if (status !== 'completed' && status !== 'canceled')
            throw new RestError(400, 20001, 'Status must be completed or canceled');
          // canceled ends a call only while it is queued or ringing; completed ends any live call.
          if (!hasEnded(call) && (status === 'completed' || call.status !== 'in-progress')) {
            engine.hangUp(call.sid);
            registry.setStatus(call, status === 'canceled' ? 'canceled' : 'completed');
          }
          return [200, callJson(call)];
        }
        if (!next) throw new RestError(400, 20001, 'Nothing to update: give Url, Twiml or Status');
        if (call.status !== 'in-progress')
          throw new RestError(400, 21220, 'Call is not in-progress. Cannot redirect.');
        engine.redirect(call.sid, next);
        return [200, callJson(call)];
      }
    }
    if (
      collection === 'Calls' &&
      id !== undefined &&
      sub === 'UserDefinedMessages' &&
      verb === 'POST'
    ) {
      // https://www.twilio.com/docs/voice/api/userdefinedmessage-resource: `Content` (JSON text),
      // only on an active call associated with the Voice SDK.
      const call = registry.call(account, id);
      const form = await readForm(req);
      const content = form.get('Content');
      if (content === null || content === '')
        throw new RestError(400, 20001, 'Missing required parameter Content in the post body');
      if (hasEnded(call)) throw new RestError(400, 21220, 'Invalid call state: the call is over');
      // "A UserDefinedMessage subresource can only be created during an active call associated with
      // the Voice SDK": a leg between phone numbers has no SDK to take it. Twilio's code for this
      // refusal is not documented; the twin answers it as the other invalid call state.
      if (!isSdkLeg(call))
        throw new RestError(
          400,
          21220,
          'A UserDefinedMessage can only be created during an active call associated with the Voice SDK',
        );
      engine.message(call.sid, content);
      return [
        201,
        {
          account_sid: account,
          call_sid: call.sid,
          sid: sid('KX'),
          date_created: date(Date.now()),
        },
      ];
    }
    if (collection === 'Notifications' && id === undefined && verb === 'GET') {
      // https://www.twilio.com/docs/voice/api/notification-resource: the account's log, newest first.
      const url = new URL(req.url ?? '/', 'http://twin');
      const entries = registry.notifications
        .filter((n) => n.accountSid === account)
        .reverse()
        .map(notificationJson);
      return [200, page('notifications', url, entries)];
    }
    if (collection === 'Conferences' && id === undefined && verb === 'GET') {
      const url = new URL(req.url ?? '/', 'http://twin');
      const name = url.searchParams.get('FriendlyName');
      const status = url.searchParams.get('Status');
      const conferences = [...registry.conferences.values()].filter(
        (c) =>
          c.accountSid === account &&
          (name === null || c.friendlyName === name) &&
          (status === null || c.status === status),
      );
      return [200, page('conferences', url, conferences.map(conferenceJson))];
    }
    if (collection === 'Conferences' && id !== undefined) {
      const conference = registry.conference(account, id);
      if (sub === undefined) {
        if (verb === 'GET') return [200, conferenceJson(conference)];
        if (verb === 'POST') {
          const form = await readForm(req);
          if (form.get('Status') === 'completed' && conference.status !== 'completed') {
            engine.endConference(conference);
            for (const p of [...conference.participants.values()]) registry.leave(conference, p);
            conference.status = 'completed';
          }
          return [200, conferenceJson(conference)];
        }
      }
      if (sub === 'Participants' && subId === undefined) {
        if (verb === 'GET')
          return [
            200,
            page(
              'participants',
              new URL(req.url ?? '/', 'http://twin'),
              [...conference.participants.values()].map((p) => participantJson(account, p)),
            ),
          ];
        if (verb === 'POST') {
          const form = await readForm(req);
          const { to, from } = parties(form);
          if (conference.status === 'completed')
            throw new RestError(400, 20001, 'The conference is over');
          const call = outbound(account, to, from);
          const participant = registry.join(conference, call.sid, {
            label: form.get('Label'),
            startConferenceOnEnter: bool(form, 'StartConferenceOnEnter') ?? true,
            endConferenceOnExit: bool(form, 'EndConferenceOnExit') ?? false,
            muted: bool(form, 'Muted') ?? false,
          });
          participant.status = 'queued';
          engine.addParticipant(conference, call, participant);
          return [201, participantJson(account, participant)];
        }
      }
      if (sub === 'Participants' && subId !== undefined) {
        const participant = registry.participant(conference, subId);
        if (verb === 'GET') return [200, participantJson(account, participant)];
        if (verb === 'DELETE') {
          // The participant leaves; a call that joined by `<Dial><Conference>` goes on with the
          // TwiML after its `<Dial>` (its action URL, else the next verb).
          engine.remove(conference, participant);
          registry.leave(conference, participant);
          return [204, null];
        }
        if (verb === 'POST') {
          const form = await readForm(req);
          const hold = bool(form, 'Hold');
          // `HoldMethod`: "Can be: `GET` or `POST` and the default is `GET`"
          // (https://www.twilio.com/docs/voice/api/conference-participant-resource).
          const holdMethod = form.get('HoldMethod') === null ? 'GET' : method(form, 'HoldMethod');
          const muted = bool(form, 'Muted');
          if (muted !== undefined) participant.muted = muted;
          // Whether the conference ends when this participant leaves can change while it is in.
          const endOnExit = bool(form, 'EndConferenceOnExit');
          if (endOnExit !== undefined) participant.endConferenceOnExit = endOnExit;
          if (hold !== undefined) {
            participant.hold = hold;
            participant.holdUrl = hold ? form.get('HoldUrl') : null;
            participant.holdMethod = holdMethod;
            engine.hold(conference, participant);
          }
          return [200, participantJson(account, participant)];
        }
      }
    }
    throw new RestError(404, 20404, `The requested resource ${req.url ?? ''} was not found`);
  }

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://twin');
    if (!url.pathname.startsWith(BASE)) return false;
    const answer = (status: number, body: unknown): void => {
      if (status === 204) {
        res.writeHead(204).end();
        return;
      }
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    };
    try {
      if (!authorised(req, credentials))
        throw new RestError(401, 20003, 'Authentication Error - invalid username');
      const recording = RECORDING.exec(url.pathname);
      if (recording && options.recordings) {
        await recordingAnswer(req, res, recording, options.recordings, credentials.accountSid);
        return true;
      }
      const path = url.pathname
        .slice(BASE.length)
        .replace(/\.json$/, '')
        .split('/');
      const [status, body] = await route(req, path);
      answer(status, body);
    } catch (err) {
      const e = err instanceof RestError ? err : new RestError(500, 20500, 'Internal Server Error');
      sendRestError(res, e.status, e.code, e.message);
    }
    return true;
  };
}

async function recordingAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  [, account, recordingSid, ext]: RegExpExecArray,
  recordings: NonNullable<VoiceRestOptions['recordings']>,
  accountSid: string,
): Promise<void> {
  const fail = (status: number, code: number, message: string): void =>
    sendRestError(res, status, code, message);
  const notFound = () => fail(404, 20404, `The requested resource ${req.url ?? ''} was not found`);
  if (account !== accountSid) return fail(401, 20003, 'Authenticate');
  const verb = req.method ?? 'GET';
  if (verb === 'DELETE' && (ext === '.json' || ext === undefined)) {
    if (!recordings.remove(recordingSid!)) return notFound();
    res.writeHead(204).end();
    return;
  }
  if (verb !== 'GET' && verb !== 'HEAD') return fail(405, 20004, 'Method not allowed');
  const file = recordings.file(recordingSid!);
  if (file === null) return notFound();
  if (ext === '.mp3')
    return fail(406, 20001, 'The voice twin serves recordings as .wav only (no MP3 encoder here)');
  if (ext !== '.wav' && ext !== undefined) return notFound();
  const { readFile } = await import('node:fs/promises');
  const wav = await readFile(file).catch(() => null);
  if (wav === null) return notFound();
  res.writeHead(200, { 'Content-Type': 'audio/x-wav', 'Content-Length': wav.length });
  res.end(verb === 'HEAD' ? undefined : wav);
}
