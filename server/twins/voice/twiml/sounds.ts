/**
 * What `<Say>` and `<Play>` sound like on the twin, as telephone audio (8 kHz μ-law):
 * - `<Say>`: the app's own speech engine (eSpeak NG) in the verb's `language`, or `en-US` when
 *   that language has no voice here; Twilio's named voices (Polly, Google) are not on this machine,
 *   so `voice` picks no sound, but a voice Twilio does not have, or one that does not speak the
 *   language, skips the verb as Twilio would (voices.ts);
 * - `<Play>`: the URL is fetched as Twilio fetches it (a GET) and must be a WAV file (any PCM, μ-law
 *   or A-law, https://www.twilio.com/docs/voice/twiml/play#supported-audio-file-types); Twilio's own
 *   hold music (`com.twilio.music.*`, twimlets) is played as the built-in music, since those hosts
 *   cannot be reached here; a music file (Twilio's S3 buckets) asked with a POST fails as a static
 *   file does (11200, silence). MP3 is refused with a sentence, and the verb is skipped, as Twilio
 *   does with a file it cannot play (error 11100-range).
 */
import { decodeWav, resample, toPcmu } from '../../../platform/audio/pcm';
import { parseTwiml } from './parse';
import { sayRefusal } from './voices';
import { signature, type Params } from './webhook';
import type { VoiceState } from '../model';
import { PCMU_SILENCE } from '../../../platform/audio/g711';
import { toneFrame } from '../../../platform/audio/tones';

/** The beep before a recording: a quarter second at 1 kHz. */
export const VOICEMAIL_BEEP = Buffer.concat(
  Array.from({ length: 12 }, (_, i) =>
    toneFrame({ frequencies: [1000], onMs: 250, offMs: 0, level: 0.3 }, i),
  ),
);

const TWILIO_MUSIC =
  /(^|\.)(twilio\.music\.[^/]*|com\.twilio\.(sounds\.)?music\.[^/]*|twimlets\.com)$/i;
/** Twilio's hold music as static files (its S3 buckets), as opposed to the twimlets application. */
const STATIC_MUSIC = /\.s3[.-][^/]*amazonaws\.com$/i;
const cache = new Map<string, Buffer>();
const CACHE_SIZE = 32;

export async function spoken(
  vs: VoiceState,
  text: string,
  language: string | null,
): Promise<Buffer> {
  const speak = vs.options.speak;
  if (!speak) throw new Error('the twin has no speech engine');
  const lang = (language ?? 'en-US').toLowerCase();
  try {
    return await speak(text, lang);
  } catch (err) {
    if (lang === 'en-us') throw err;
    vs.log(`voice twin: <Say> in ${lang}: ${String(err)}; saying it in en-US`);
    return speak(text, 'en-us');
  }
}

export async function playable(vs: VoiceState, url: string): Promise<Buffer> {
  const fetched = await fetchSound(vs, url);
  if ('twiml' in fetched)
    throw new Error(`12300 the twins play WAV files only; ${url} answered TwiML`);
  return fetched.audio;
}

/**
 * What a URL answers: Twilio's music (the built-in music), audio (μ-law `audio/basic`, or WAV made
 * μ-law), or TwiML (text that starts with `<`, for a conference's `waitUrl`). Throws a sentence with
 * Twilio's code for anything else.
 */
async function fetchSound(
  vs: VoiceState,
  url: string,
  post: Params | null = null,
): Promise<{ audio: Buffer } | { twiml: string }> {
  const u = new URL(url);
  if (TWILIO_MUSIC.test(u.hostname)) {
    // Twilio's music buckets are static files (S3), which answer a GET only: asked with a POST
    // (`waitMethod`'s default) they refuse it, and Twilio plays nothing. Twilio says to ask a static
    // file with GET (https://www.twilio.com/docs/voice/twiml/conference#attributes-waitMethod,
    // https://www.twilio.com/docs/api/errors/13234). twimlets.com is an application: either method.
    if (post && STATIC_MUSIC.test(u.hostname))
      throw new Error(
        `11200 HTTP retrieval failure: ${url} answered 405 to a POST (a static file)`,
      );
    return { audio: vs.music };
  }
  const known = post ? undefined : cache.get(url);
  if (known) return { audio: known };
  const doFetch = vs.app?.application.fetch ?? fetch;
  const response = await doFetch(
    url,
    post
      ? {
          method: 'POST',
          headers: {
            'Content-Type': 'application/x-www-form-urlencoded',
            'X-Twilio-Signature': signature(vs.app?.application.authToken ?? '', url, post),
          },
          body: new URLSearchParams(post).toString(),
          signal: AbortSignal.timeout(15_000),
        }
      : { signal: AbortSignal.timeout(15_000) },
  );
  if (!response.ok)
    throw new Error(`11200 HTTP retrieval failure: ${url} answered ${response.status}`);
  const body = Buffer.from(await response.arrayBuffer());
  const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  let audio: Buffer;
  if (type === 'audio/basic') audio = body;
  else if (body.toString('latin1', 0, 4) === 'RIFF') audio = toPcmu(resample(decodeWav(body)));
  else if (/xml/.test(type) || body.toString('utf8').trimStart().startsWith('<'))
    return { twiml: body.toString('utf8') };
  else throw new Error(`12300 the twins play WAV files only; ${url} is ${type || 'of no type'}`);
  // Kept as Twilio caches audio asked for with a GET; a POST is asked again each time.
  if (!post) {
    cache.set(url, audio);
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  }
  return { audio };
}

/**
 * What a conference participant hears waiting or held (`waitUrl`, `holdUrl`), one loop of it: the
 * URL's audio, or its TwiML's `<Play>`, `<Say>` and `<Pause>` verbs one after another
 * (https://www.twilio.com/docs/voice/twiml/conference#attributes-waitUrl: the wait URL may answer
 * audio or TwiML limited to a few verbs); null for silence (an empty URL). Any other verb is left
 * out (`<Redirect>` too); a URL that cannot be had is silence, logged. With `post`, the URL is asked
 * with a signed POST of those fields (`waitMethod`'s default), else with a GET (`HoldMethod`'s
 * default, https://www.twilio.com/docs/voice/api/conference-participant-resource).
 */
export async function loopSound(
  vs: VoiceState,
  url: string,
  post: Params | null = null,
): Promise<Buffer | null> {
  if (url === '') return null;
  try {
    const fetched = await fetchSound(vs, url, post);
    if (!('twiml' in fetched)) return fetched.audio;
    const parts: Buffer[] = [];
    for (const verb of parseTwiml(fetched.twiml).verbs) {
      if (verb.verb === 'Play') parts.push(await playable(vs, new URL(verb.url, url).toString()));
      else if (verb.verb === 'Say') {
        const refused = sayRefusal(verb.voice, verb.language);
        if (refused) vs.log(`voice twin: <Say> in ${url} skipped: ${refused}`);
        else parts.push(await spoken(vs, verb.text, verb.language));
      } else if (verb.verb === 'Pause') parts.push(Buffer.alloc(verb.seconds * 8000, PCMU_SILENCE));
      else vs.log(`voice twin: <${verb.verb}> in the wait or hold TwiML of ${url} is left out`);
    }
    const loop = Buffer.concat(parts);
    return loop.length > 0 ? loop : null;
  } catch (err) {
    vs.log(`voice twin: ${url}: ${err instanceof Error ? err.message : String(err)}; silence`);
    return null;
  }
}
