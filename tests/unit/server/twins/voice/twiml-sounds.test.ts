/**
 * What a conference participant hears waiting or held (`waitUrl`, `holdUrl`,
 * https://www.twilio.com/docs/voice/twiml/conference#attributes-waitUrl): silence for an empty URL,
 * Twilio's music hosts as the built-in music (its static music files with a GET only), the URL's audio, or its TwiML's `<Play>`, `<Say>` and
 * `<Pause>` one after another; a URL that cannot be had is silence, logged.
 */
import twilio from 'twilio';
import { describe, expect, it } from 'vitest';
import type { VoiceState } from '../../../../../server/twins/voice/model';
import { loopSound } from '../../../../../server/twins/voice/twiml/sounds';

const MUSIC = Buffer.alloc(800, 0x11);
const CLIP = Buffer.alloc(1600, 0x22);
const SPOKEN = Buffer.alloc(400, 0x33);
const TOKEN = 'twin-auth-token';

/** A voice state with what loopSound reads: the music, a speech engine, the application's fetch. */
function state(answers: Record<string, { type: string; body: string | Buffer; status?: number }>) {
  const log: string[] = [];
  const asked: string[] = [];
  const requests: { url: string; init: RequestInit | undefined }[] = [];
  const fetch = (url: string, init?: RequestInit) => {
    const key = url;
    asked.push(key);
    requests.push({ url, init });
    const a = answers[key];
    if (!a) return Promise.reject(new Error('connection refused'));
    return Promise.resolve(
      new Response(typeof a.body === 'string' ? a.body : new Uint8Array(a.body), {
        status: a.status ?? 200,
        headers: { 'content-type': a.type },
      }),
    );
  };
  const vs = {
    music: MUSIC,
    log: (m: string) => log.push(m),
    options: { speak: (text: string) => Promise.resolve(text === 'Please wait' ? SPOKEN : CLIP) },
    app: { application: { fetch, authToken: TOKEN } },
  } as unknown as VoiceState;
  return { vs, log, asked, requests };
}

describe('a wait or hold URL', () => {
  it('is silence when empty, and the built-in music on Twilio’s music hosts (nothing fetched)', async () => {
    const { vs, asked } = state({});
    expect(await loopSound(vs, '')).toBeNull();
    expect(
      await loopSound(vs, 'http://com.twilio.music.classical.s3.amazonaws.com/BusyStrings.mp3'),
    ).toBe(MUSIC);
    expect(
      await loopSound(vs, 'http://twimlets.com/holdmusic?Bucket=com.twilio.music.classical'),
    ).toBe(MUSIC);
    expect(asked).toEqual([]);
  });

  it('is silence, logged, for Twilio’s music files asked with a POST (static files answer a GET only)', async () => {
    const { vs, asked, log } = state({});
    const fields = { AccountSid: 'AC1', CallSid: 'CA1', CallStatus: 'in-progress' };
    const file = 'http://com.twilio.music.classical.s3.amazonaws.com/BusyStrings.mp3';
    expect(await loopSound(vs, file, fields)).toBeNull();
    expect(log[0]).toMatch(/11200 HTTP retrieval failure.*405/);
    // The twimlets application takes a POST.
    expect(
      await loopSound(
        vs,
        'http://twimlets.com/holdmusic?Bucket=com.twilio.music.classical',
        fields,
      ),
    ).toBe(MUSIC);
    expect(asked).toEqual([]);
  });

  it('plays the audio a URL answers', async () => {
    const url = 'https://pbx.example.com/api/twilio/media/hold-1';
    const { vs } = state({ [url]: { type: 'audio/basic', body: CLIP } });
    expect(await loopSound(vs, url)).toEqual(CLIP);
  });

  it("plays a TwiML answer's <Play>, <Say> and <Pause> in order, leaving other verbs out", async () => {
    const url = 'https://pbx.example.com/api/twilio/wait';
    const { vs, log } = state({
      [url]: {
        type: 'text/xml',
        body: '<Response><Say>Please wait</Say><Play>/clip</Play><Pause length="1"/><Hangup/></Response>',
      },
      'https://pbx.example.com/clip': { type: 'audio/basic', body: CLIP },
    });
    const loop = await loopSound(vs, url);
    expect(loop).toEqual(Buffer.concat([SPOKEN, CLIP, Buffer.alloc(8000, 0xff)]));
    expect(log).toEqual([`voice twin: <Hangup> in the wait or hold TwiML of ${url} is left out`]);
  });

  it("asks a waitUrl with a signed POST of the call's fields (waitMethod's default), not kept", async () => {
    const url = 'https://pbx.example.com/api/twilio/wait-post';
    const { vs, requests } = state({ [url]: { type: 'audio/basic', body: CLIP } });
    const fields = { AccountSid: 'AC1', CallSid: 'CA1', CallStatus: 'in-progress' };
    expect(await loopSound(vs, url, fields)).toEqual(CLIP);
    expect(await loopSound(vs, url, fields)).toEqual(CLIP);
    expect(requests).toHaveLength(2);
    const init = requests[0]!.init!;
    expect(init.method).toBe('POST');
    expect(init.body as string).toBe(new URLSearchParams(fields).toString());
    const headers = init.headers as Record<string, string>;
    expect(twilio.validateRequest(TOKEN, headers['X-Twilio-Signature']!, url, fields)).toBe(true);
  });

  it('is silence, logged, when the URL cannot be had', async () => {
    const url = 'https://pbx.example.com/api/twilio/media/gone';
    const { vs, log } = state({ [url]: { type: 'text/plain', body: 'nope', status: 404 } });
    expect(await loopSound(vs, url)).toBeNull();
    expect(log[0]).toMatch(/11200 HTTP retrieval failure/);
  });
});
