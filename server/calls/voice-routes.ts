import { API, type VoiceCredentials } from '../../src/contracts/api';
import { CALL_CONTROL_NAMES, CALL_CONTROLS } from '../../src/contracts/call-controls';
import type { CallControls } from './control';
import { CallControlError } from './refusals';
import type { Auth } from '../identity/sessions';
import { readBody } from '../platform/http/body';
import { HttpError, sendJson } from '../platform/http/errors';
import type { Router } from '../platform/http/router';
import { toneWav } from '../platform/audio/tones';
import { SDK_SOUNDS } from './sounds';

export interface VoiceRouteDeps {
  auth: Auth;
  /** Lifetime of a voice token; the SDK asks for a new one 10 s before it ends. */
  tokenTtlSeconds?: number;
  /** The account's Voice: its tokens, the registration check and the call controls. */
  voice: VoiceBackend;
}

/** Voice's answers to the token and registration questions, and the call controls. */
export interface VoiceBackend {
  /** The whole `GET /api/voice/token` answer; `origin` is the page's. */
  credentials(identity: string, ttlSeconds: number, origin: string): VoiceCredentials;
  /** Whether the service can ring the person (the dead-phone check: registration.ts). */
  registered(identity: string): Promise<boolean>;
  /** Hold, park and transfer of its calls (server/calls/control.ts). */
  control: CallControls;
}

/** The SDK's sound names, in the order it asks for them. */
export const SOUND_NAMES = Object.keys(SDK_SOUNDS);

/**
 * GET /api/voice/token: a Voice token for the signed-in person and the Device options (where the SDK
 * signals, the sounds from /api/voice/sounds).
 * GET /api/voice/registration: `{ registered }`, whether the service can ring the signed-in person.
 * GET /api/voice/sounds/{name}.wav[?level=0..100]: the SDK's ringtone, dial and DTMF sounds, made here.
 * POST /api/voice/calls/{callSid}/<control>: the call controls (src/contracts/call-controls.ts) on
 * one of the signed-in person's own calls (`callSid` as their browser knows it): hold, resume, park
 * (200 with the parked call), transfer `{ to, mode }`, transfer/complete, transfer/cancel; else 204.
 */
export function registerVoiceRoutes(router: Router, deps: VoiceRouteDeps): void {
  const ttl = deps.tokenTtlSeconds ?? 3600;
  router.route(API.voiceToken, (ctx) => {
    const { user } = deps.auth.requireSession(ctx);
    sendJson(ctx.res, 200, deps.voice.credentials(user.identity, ttl, ctx.origin.origin));
  });

  // Whether the service has this person's phone registered. A browser whose socket died silently
  // (a background tab, a NAT that forgot the connection) still believes it is registered; the page
  // asks here when it comes back to the foreground and registers afresh if not.
  router.route(API.voiceRegistration, async (ctx) => {
    const { user } = deps.auth.requireSession(ctx);
    sendJson(ctx.res, 200, { registered: await deps.voice.registered(user.identity) });
  });

  // The call controls (hold, resume, park, transfer and a consult's end): the SDK has no such
  // primitive, so the page asks the server, which moves the call's legs. The session names the
  // person; the controls check the call is theirs.
  const CALL_SID = /^[A-Za-z0-9-]{1,64}$/;
  for (const name of CALL_CONTROL_NAMES) {
    const control = CALL_CONTROLS[name];
    // One control's function, as any of them: given what its route's body held, if it has one.
    const carryOut = deps.voice.control[name] as (
      identity: string,
      callSid: string,
      ...args: unknown[]
    ) => Promise<unknown>;
    router.route(control, async (ctx) => {
      const { user } = deps.auth.requireSession(ctx);
      const callSid = ctx.params.sid ?? '';
      if (!CALL_SID.test(callSid))
        throw new HttpError(400, 'bad_request', 'That is not a call id.');
      const args =
        control.body === null ? [] : [await readBody(ctx.req, { ...control, body: control.body })];
      let answer: unknown;
      try {
        answer = await carryOut(user.identity, callSid, ...args);
      } catch (err) {
        if (err instanceof CallControlError) throw new HttpError(err.status, err.code, err.message);
        throw err;
      }
      if (control.answer !== null) return sendJson(ctx.res, 200, answer);
      ctx.res.writeHead(204, { 'Cache-Control': 'no-store' });
      ctx.res.end();
    });
  }

  const cache = new Map<string, Buffer>();
  router.route(API.voiceSound, (ctx) => {
    const match = /^([a-z0-9]+)\.wav$/.exec(ctx.params.file ?? '');
    const tone = match ? SDK_SOUNDS[match[1]!] : undefined;
    if (!match || !tone) throw new HttpError(404, 'not_found', 'No such sound');
    // ?level=0..100: the person's ringtone volume, as a percentage of the sound's own level.
    const raw = ctx.url.searchParams.get('level');
    if (raw !== null && !/^(100|[1-9]?[0-9])$/.test(raw))
      throw new HttpError(400, 'bad_request', 'level must be a whole number from 0 to 100');
    const level = raw === null ? 100 : Number(raw);
    const key = `${match[1]!}@${level}`;
    let wav = cache.get(key);
    if (!wav) {
      wav = toneWav({ ...tone, level: ((tone.level ?? 0.2) * level) / 100 });
      cache.set(key, wav);
    }
    ctx.res.writeHead(200, {
      'Content-Type': 'audio/wav',
      'Content-Length': wav.length,
      'Cache-Control': 'public, max-age=86400',
    });
    ctx.res.end(ctx.req.method === 'HEAD' ? undefined : wav);
  });
}
