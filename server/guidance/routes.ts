/**
 * The admin API for announcements: the languages text can be spoken in, a preview of text as callers
 * will hear it, and a stored announcement's audio. Every answer is the 8 kHz μ-law a caller's leg
 * carries, decoded into a 16-bit WAV, so what an admin hears is what a caller hears.
 */
import { API } from '../../src/contracts/api';
import { readBody } from '../platform/http/body';
import { HttpError, sendJson } from '../platform/http/errors';
import type { RequestContext, Router } from '../platform/http/router';
import type { Auth } from '../identity/sessions';
import { AnnouncementError, parseSpokenText, type Announcements } from './announcements';
import { pcmuWav } from '../platform/audio/pcm';
import { SpeechError, type Speech } from './speech';

export const DEFAULT_LANGUAGE = 'en-us';
const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export interface GuidanceRouteDeps {
  auth: Auth;
  speech: Speech;
  announcements: Announcements;
}

/** The HTTP answer for what went wrong making an announcement's audio. */
export function announcementHttpError(err: unknown): Error {
  if (err instanceof AnnouncementError) {
    if (err.kind === 'bad_text') return new HttpError(400, 'bad_request', err.message);
    if (err.kind === 'not_found') return new HttpError(404, 'not_found', err.message);
    return new HttpError(422, 'audio_unplayable', err.message);
  }
  if (err instanceof SpeechError) {
    if (err.kind === 'unknown_language') return new HttpError(400, 'unknown_language', err.message);
    if (err.kind === 'too_long') return new HttpError(400, 'bad_request', err.message);
    return new HttpError(503, 'speech_unavailable', err.message, { 'Retry-After': '5' });
  }
  return err instanceof Error ? err : new Error(String(err));
}

export function registerGuidanceRoutes(router: Router, deps: GuidanceRouteDeps): void {
  router.route(API.languages, async (ctx) => {
    deps.auth.requireAdmin(ctx);
    const languages = await deps.speech.languages().catch((err: unknown) => {
      throw announcementHttpError(err);
    });
    sendJson(ctx.res, 200, { languages, default: DEFAULT_LANGUAGE, engine: deps.speech.engine });
  });

  // The editor's preview, before anything is saved: `{ text, language }`, or `{ audioId }` of a file.
  router.route(API.preview, async (ctx) => {
    deps.auth.requireAdmin(ctx);
    const body = await readBody(ctx.req, API.preview);
    if (body.audioId !== undefined && (body.text !== undefined || body.language !== undefined)) {
      throw new HttpError(400, 'bad_request', 'Send either text and language, or audioId');
    }
    if (body.audioId === undefined && (body.text === undefined || body.language === undefined)) {
      throw new HttpError(400, 'bad_request', 'Send the text and its language');
    }
    try {
      const item =
        body.audioId === undefined
          ? { kind: 'tts', text: parseSpokenText(body.text ?? ''), language: body.language }
          : { kind: 'audio', audioId: body.audioId };
      sendWav(ctx, await deps.announcements.pcmuOf(item));
    } catch (err) {
      throw announcementHttpError(err);
    }
  });

  router.route(API.announcementAudio, async (ctx) => {
    deps.auth.requireAdmin(ctx);
    const id = ctx.params.id ?? '';
    if (!ID_PATTERN.test(id)) throw new HttpError(404, 'not_found', 'No such announcement');
    try {
      sendWav(ctx, await deps.announcements.pcmu(id));
    } catch (err) {
      throw announcementHttpError(err);
    }
  });
}

/** The WAV of μ-law audio; one `bytes=a-b` range is honoured (audio elements ask for them). */
function sendWav(ctx: RequestContext, pcmu: Buffer): void {
  const wav = pcmuWav(pcmu);
  const headers: Record<string, string> = {
    'Content-Type': 'audio/wav',
    'Accept-Ranges': 'bytes',
    // An announcement changes when it is edited: never reuse an old rendering.
    'Cache-Control': 'no-store',
  };
  let start = 0;
  let end = wav.length - 1;
  let status = 200;
  const range = ctx.req.headers.range;
  if (range !== undefined) {
    const m = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
    if (m && (m[1] !== '' || m[2] !== '')) {
      if (m[1] === '') start = Math.max(0, wav.length - Number(m[2]));
      else {
        start = Number(m[1]);
        if (m[2] !== '') end = Math.min(Number(m[2]), wav.length - 1);
      }
    }
    if (!m || start > end || start >= wav.length) {
      ctx.res.writeHead(416, { 'Content-Range': `bytes */${wav.length}` });
      ctx.res.end();
      return;
    }
    status = 206;
    headers['Content-Range'] = `bytes ${start}-${end}/${wav.length}`;
  }
  headers['Content-Length'] = String(end - start + 1);
  ctx.res.writeHead(status, headers);
  ctx.res.end(ctx.req.method === 'HEAD' ? undefined : wav.subarray(start, end + 1));
}
