/**
 * Audio Twilio fetches from this server, and recordings the browser fetches through it.
 *
 * Announcements: a text announcement is played to callers as this server renders it (eSpeak NG,
 * 8 kHz μ-law, server/guidance/), the same audio the admin previewed, at
 * `GET /api/twilio/audio/{id}.wav?v=…&s=…`. Twilio fetches `<Play>` URLs without a signature of its
 * own, so the URL carries one (an HMAC under the auth token over the id and the announcement's
 * version): only URLs this server wrote are served. The version changes when the announcement does,
 * so Twilio's media cache never plays an old one. If the speech engine cannot render the text when
 * the call arrives, the caller hears Twilio's `<Say>` of it instead. An announcement made from an
 * uploaded WAV file is served the same way, resampled, by the server that has the file (the one it
 * was uploaded to, server/audio/); one whose file this server cannot play (another server's, or not
 * WAV) is left out of the call (docs/operations.md).
 *
 * Voicemail: the history row keeps the Recording SID as the message's id, and
 * GET /api/voicemail/{id} (voicemail.ts) streams the recording (WAV) to a signed-in admin or member
 * of the group it was left for ({@link createTwilioVoicemail}).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Announcements } from '../guidance/announcements';
import { pcmuWav } from '../platform/audio/pcm';
import { HttpError } from '../platform/http/errors';
import type { Router } from '../platform/http/router';
import { TWILIO_PATHS } from '../../src/contracts/api';
import { CALLS } from '../../src/contracts/objects';
import { callRecord } from '../../src/contracts/records/call';
import type { VoicemailMessages } from './voicemail';
import type { SyncRest } from '../twilio/sync-rest';
import type { JsonObject } from '../../src/contracts/record';
import { redirectedUri } from '../twilio/client';
import type { TwilioConfig } from '../twilio/config';
import type { RoutingData } from '../routing/routing-data';
import { sayVoice, type Spoken } from './twiml';

/** How long the webhook waits for a first rendering before it lets Twilio speak the text. */
const RENDER_WAIT_MS = 3000;

const sign = (key: string, what: string): string =>
  createHmac('sha256', key).update(what).digest('base64url').slice(0, 32);

function signedOk(key: string, what: string, given: string | null): boolean {
  const expected = Buffer.from(sign(key, what));
  const actual = Buffer.from(given ?? '');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** What changes an announcement's audio; its hash names the version in the URL. */
export function announcementVersion(item: JsonObject): string {
  return createHash('sha256')
    .update(JSON.stringify([item.kind, item.text, item.language, item.audioId]))
    .digest('base64url')
    .slice(0, 12);
}

export interface TwilioMedia {
  /** How the announcement `id` reaches a caller now, or null (gone, or a file announcement). */
  announcement(id: string): Promise<Spoken | null>;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out')), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

export function registerTwilioMedia(
  router: Router,
  deps: {
    config: TwilioConfig;
    data: RoutingData;
    announcements: Announcements;
    log: (message: string) => void;
  },
): TwilioMedia {
  const { config } = deps;
  /**
   * How each announcement item read from Sync reaches callers, worked out once per item: the cache
   * hands out the same object until it reads the announcement again (a failed render is tried again
   * then, not on every call meanwhile).
   */
  const spokenFor = new WeakMap<JsonObject, Spoken>();
  const warned = new Set<string>();

  router.on('GET', `${TWILIO_PATHS.audio}/:file`, async (ctx) => {
    const id = /^(.{1,200})\.wav$/.exec(ctx.params.file ?? '')?.[1];
    const version = ctx.url.searchParams.get('v') ?? '';
    if (!id || !signedOk(config.authToken, `audio:${id}:${version}`, ctx.url.searchParams.get('s')))
      throw new HttpError(404, 'not_found', 'No such announcement');
    const item = await deps.data.guidance(id);
    if (!item) throw new HttpError(404, 'not_found', 'No such announcement');
    const wav = pcmuWav(await deps.announcements.pcmuOf(item));
    ctx.res.writeHead(200, {
      'Content-Type': 'audio/wav',
      'Content-Length': wav.length,
      // The URL names the version: what it serves never changes.
      'Cache-Control': 'public, max-age=86400',
    });
    ctx.res.end(ctx.req.method === 'HEAD' ? undefined : wav);
  });

  return {
    async announcement(id) {
      const item = await deps.data.guidance(id);
      if (!item) return null;
      const known = spokenFor.get(item);
      if (known) return known;
      const text = typeof item.text === 'string' ? item.text : '';
      const language = typeof item.language === 'string' ? item.language : '';
      let spoken: Spoken;
      try {
        // Rendered once (the speech cache keeps it), before Twilio asks for it.
        await withTimeout(deps.announcements.pcmuOf(item), RENDER_WAIT_MS);
        const version = announcementVersion(item);
        const query = new URLSearchParams({
          v: version,
          s: sign(config.authToken, `audio:${id}:${version}`),
        });
        spoken = {
          play: `${config.publicUrl}${TWILIO_PATHS.audio}/${encodeURIComponent(id)}.wav?${query.toString()}`,
        };
      } catch (err) {
        // An audio file is on the server it was uploaded to: one this server cannot play (not
        // here, or not WAV) is left out of the call, said once in the log.
        if (item.kind !== 'tts') {
          if (!warned.has(id)) {
            warned.add(id);
            deps.log(
              `announcement ${id} is an audio file this server cannot play (${err instanceof Error ? err.message : String(err)}): left out of calls`,
            );
          }
          return null;
        }
        deps.log(
          `announcement ${id} could not be rendered (${err instanceof Error ? err.message : String(err)}): Twilio speaks it`,
        );
        if (text.trim() === '') return null;
        spoken = { say: text, voice: sayVoice(language) };
      }
      spokenFor.set(item, spoken);
      return spoken;
    },
  };
}

/** A Recording SID: the id of a voicemail message. */
const RECORDING_SID = /^RE[0-9a-f]{32}$/;
/** How many history rows, newest first, are searched for a recording not seen since the start. */
const SEARCHED_ROWS = 2000;
/** Recordings whose group is remembered (a few hours' messages on a busy team). */
const REMEMBERED = 5000;

export interface TwilioVoicemail extends VoicemailMessages {
  /** Notes the group a recording was left for, as its webhook said. */
  left(recordingSid: string, groupId: string): void;
}

/**
 * Voicemail, for GET /api/voicemail/{id}: the id is the Recording SID the history row keeps. The
 * group it was left for (who may hear it) is what the recording's webhook said, or, for one left
 * before this server started, the `group` of the history row that holds it. The audio is the
 * recording's WAV (Twilio's, or the voice twin's), fetched with the API key and passed on.
 */
export function createTwilioVoicemail(deps: {
  config: TwilioConfig;
  rest: SyncRest;
  fetch?: typeof fetch;
}): TwilioVoicemail {
  const { config } = deps;
  const doFetch = deps.fetch ?? fetch;
  const groups = new Map<string, string>();
  const remember = (recordingSid: string, groupId: string): void => {
    groups.delete(recordingSid);
    groups.set(recordingSid, groupId);
    if (groups.size > REMEMBERED) groups.delete(groups.keys().next().value!);
  };

  async function groupOf(recordingSid: string): Promise<string | null> {
    const known = groups.get(recordingSid);
    if (known !== undefined) return known;
    for (const { data } of await deps.rest.listItems(CALLS.name, SEARCHED_ROWS, 'desc')) {
      const row = callRecord.read(data);
      if (row.voicemail?.id !== recordingSid) continue;
      if (row.group === null) return null;
      remember(recordingSid, row.group);
      return row.group;
    }
    return null;
  }

  return {
    left: remember,
    async find(id) {
      if (!RECORDING_SID.test(id)) return null;
      const groupId = await groupOf(id);
      if (groupId === null) return null;
      return {
        groupId,
        async send(ctx) {
          // WAV, Twilio's default media format, which the voice twin serves too
          // (https://www.twilio.com/docs/voice/api/recording#fetch-a-recording-media-file).
          const twilioUrl = `https://api.twilio.com/2010-04-01/Accounts/${config.accountSid}/Recordings/${id}.wav`;
          const upstream = await doFetch(
            config.apiBaseUrl ? redirectedUri(twilioUrl, config.apiBaseUrl) : twilioUrl,
            {
              headers: {
                Authorization: `Basic ${Buffer.from(`${config.apiKey}:${config.apiSecret}`).toString('base64')}`,
              },
            },
          ).catch(() => null);
          if (!upstream || !upstream.ok) {
            if (upstream?.status === 404)
              throw new HttpError(404, 'not_found', 'No such voicemail message');
            throw new HttpError(
              502,
              'upstream_error',
              'Twilio did not hand out the recording; try again',
            );
          }
          const body = Buffer.from(await upstream.arrayBuffer());
          ctx.res.writeHead(200, {
            'Content-Type': 'audio/wav',
            'Content-Length': body.length,
            'Cache-Control': 'private, max-age=3600',
          });
          ctx.res.end(ctx.req.method === 'HEAD' ? undefined : body);
        },
      };
    },
  };
}
