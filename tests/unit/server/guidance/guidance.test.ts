import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { callerLanguage } from '../../../../server/guidance/languages';
import { sayVoice } from '../../../../server/calls/twiml';
import { afterEach, describe, expect, it } from 'vitest';
import { AnnouncementError, parseSpokenText } from '../../../../server/guidance/announcements';
import {
  decodeWav,
  fromPcmu,
  pcmuWav,
  pcmWav,
  resample,
  toPcmu,
} from '../../../../server/platform/audio/pcm';
import { createSpeech, parseVoices, SpeechError } from '../../../../server/guidance/speech';
import type { SyncRest } from '../../../../server/twilio/sync-rest';
import { mp3File, wavFile } from '../../../support/audio-fixtures';
import {
  expectError,
  postJson,
  removeDir,
  sessionCookieOf,
  startApp,
  tempDir,
  type TestApp,
} from '../support';

/** The strongest frequency (Hz) among `candidates` in `samples` at `rate` (a Goertzel filter each). */
function loudest(samples: Int16Array, rate: number, candidates: number[]): number {
  const power = (f: number) => {
    const w = (2 * Math.PI * f) / rate;
    let s1 = 0;
    let s2 = 0;
    for (const x of samples) {
      const s0 = x + 2 * Math.cos(w) * s1 - s2;
      s2 = s1;
      s1 = s0;
    }
    return s1 * s1 + s2 * s2 - 2 * Math.cos(w) * s1 * s2;
  };
  return candidates.reduce((a, b) => (power(b) > power(a) ? b : a));
}

const tone = (f: number, rate: number, seconds: number, level = 8000) =>
  Int16Array.from({ length: Math.round(rate * seconds) }, (_, i) =>
    Math.round(level * Math.sin((2 * Math.PI * f * i) / rate)),
  );

/** Root mean square of the samples. */
const rms = (s: Int16Array) => Math.sqrt(s.reduce((a, x) => a + x * x, 0) / Math.max(1, s.length));

describe('telephone audio', () => {
  it('resamples speech-rate audio to 8 kHz keeping its length and pitch', () => {
    const out = resample({ rate: 22050, samples: tone(440, 22050, 1) }, 8000);
    expect(out.length).toBe(8000);
    expect(loudest(out, 8000, [220, 440, 880, 1000])).toBe(440);
    expect(rms(out)).toBeGreaterThan(8000 * 0.6);
  });

  it('filters out what 8 kHz cannot carry instead of folding it back (no aliasing)', () => {
    // 6 kHz would alias to 2 kHz without the low-pass filter.
    const out = resample({ rate: 22050, samples: tone(6000, 22050, 0.5) }, 8000);
    expect(rms(out)).toBeLessThan(8000 * 0.05);
  });

  it('encodes μ-law and decodes it back close to the original', () => {
    const samples = tone(440, 8000, 0.1);
    const pcmu = toPcmu(samples);
    expect(pcmu.length).toBe(samples.length);
    const back = fromPcmu(pcmu);
    for (let i = 0; i < samples.length; i++) {
      expect(Math.abs(back[i]! - samples[i]!)).toBeLessThanOrEqual(Math.abs(samples[i]!) / 16 + 16);
    }
  });

  it('previews μ-law as an 8 kHz 16-bit WAV of the same length', () => {
    const wav = pcmuWav(toPcmu(tone(440, 8000, 0.5)));
    const decoded = decodeWav(wav);
    expect(decoded.rate).toBe(8000);
    expect(decoded.samples.length).toBe(4000);
  });

  it('decodes WAV files: 16-bit, stereo mixed down, 8-bit, float; refuses what is not one', () => {
    expect(decodeWav(wavFile(0.25, 44100))).toMatchObject({ rate: 44100 });
    expect(decodeWav(wavFile(0.25, 44100)).samples.length).toBe(11025);
    // Stereo: left and right opposite, so the mix is silence.
    const stereo = pcmWav(new Int16Array([1000, -1000, 2000, -2000]), 8000);
    stereo.writeUInt16LE(2, 22);
    expect([...decodeWav(stereo).samples]).toEqual([0, 0]);
    const eight = Buffer.from(pcmWav(new Int16Array(0), 8000));
    eight.writeUInt16LE(8, 34);
    const withData = Buffer.concat([eight, Buffer.from([128, 255])]);
    withData.writeUInt32LE(2, 40);
    expect([...decodeWav(withData).samples]).toEqual([0, 127 << 8]);
    expect(() => decodeWav(Buffer.from('RIFF\0\0\0\0WAVEdata\0\0\0\0'))).toThrow(/format/);
    expect(() => decodeWav(Buffer.from('not a wav file at all'))).toThrow(/not a WAV/);
  });

  it('reads the language list eSpeak NG prints', () => {
    expect(
      parseVoices([
        'Pty Language       Age/Gender VoiceName          File                 Other Languages',
        ' 5  de              --/M      German             gmw/de               ',
        ' 2  en-us           --/M      English_(America)  gmw/en-US            (en 3)',
        ' 2  en-us           --/M      English_(America)  gmw/en-US            (en 3)',
        'garbage',
      ]),
    ).toEqual([
      { code: 'en-us', name: 'English (America)' },
      { code: 'de', name: 'German' },
    ]);
  });

  it('accepts spoken text of 1 to 1000 characters without control characters', () => {
    expect(parseSpokenText('  We are closed.\nPlease call back.  ')).toBe(
      'We are closed.\nPlease call back.',
    );
    expect(parseSpokenText('é'.repeat(1000))).toHaveLength(1000);
    for (const bad of ['', '   ', 'x'.repeat(1001), 'bell\u0007', 'flip\u202e']) {
      expect(() => parseSpokenText(bad)).toThrow(AnnouncementError);
    }
  });
});

describe('the speech engine', () => {
  it('ends a render that takes too long, and renders again afterwards', async () => {
    const dataDir = tempDir();
    const slow = createSpeech({ dataDir, timeoutMs: 1 });
    try {
      const failed = await slow.render('Hello', 'en-us').catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(SpeechError);
      expect(failed).toMatchObject({
        kind: 'timeout',
        message: 'Speaking this text took too long',
      });
    } finally {
      await slow.close();
    }
    const speech = createSpeech({ dataDir, maxSeconds: 1 });
    try {
      expect((await speech.render('Hello', 'en-us')).length).toBeGreaterThan(2000);
      // Speech longer than the limit is refused, and nothing is cached for it.
      await expect(
        speech.render('This sentence takes well over one second to say out loud.', 'en-us'),
      ).rejects.toMatchObject({ kind: 'too_long' });
      expect(readdirSync(join(dataDir, 'speech'))).toHaveLength(1);
    } finally {
      await speech.close();
      removeDir(dataDir);
    }
  }, 30_000);
});

const running: TestApp[] = [];
afterEach(async () => {
  for (const t of running.splice(0)) {
    await t.close();
    removeDir(t.dataDir);
  }
});

async function start(): Promise<{
  t: TestApp;
  sync: SyncRest;
  admin: string;
  agent: string;
}> {
  const t = await startApp();
  const sync = t.sync;
  running.push(t);
  const admin = sessionCookieOf(
    await postJson(`${t.url}/api/session/local`, { name: 'Ada', email: 'ada@x.io' }),
  )!;
  const agent = sessionCookieOf(
    await postJson(`${t.url}/api/session/local`, { name: 'Tom', email: 'tom@x.io' }),
  )!;
  return { t, sync, admin, agent };
}

const preview = (t: TestApp, cookie: string, body: unknown) =>
  postJson(`${t.url}/api/guidance/preview`, body, { Cookie: cookie });

describe('/api/guidance', () => {
  it('lists the languages callers may hear (eSpeak NG and Twilio’s <Say> both speak them), to admins only', async () => {
    const s = await start();
    const res = await fetch(`${s.t.url}/api/guidance/languages`, { headers: { Cookie: s.admin } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { languages: { code: string }[]; default: string };
    const codes = body.languages.map((l) => l.code);
    expect(codes).toEqual(expect.arrayContaining(['en-us', 'en-gb', 'de', 'fr-fr', 'es']));
    expect(codes).toContain(body.default);
    // eSpeak NG's constructed and historical languages are not offered to callers.
    for (const odd of ['piqd', 'qya', 'sjn', 'jbo', 'grc', 'eo']) expect(codes).not.toContain(odd);
    expect(codes.every((code) => callerLanguage(code)?.say)).toBe(true);
    expect(sayVoice('en-gb')?.language).toBe('en-GB');
    expect(sayVoice('es-419')?.language).toBe('es-MX');
    const agent = await fetch(`${s.t.url}/api/guidance/languages`, {
      headers: { Cookie: s.agent },
    });
    expect(agent.status).toBe(403);
  }, 30_000);

  it('previews text as callers hear it: an 8 kHz WAV of plausible length, cached on disk', async () => {
    const s = await start();
    const text = 'Thank you for calling. Our office is closed. Please call again tomorrow.';
    const res = await preview(s.t, s.admin, { text, language: 'en-us' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    const wav = decodeWav(Buffer.from(await res.arrayBuffer()));
    expect(wav.rate).toBe(8000);
    const seconds = wav.samples.length / wav.rate;
    // About twelve words: three to eight seconds of speech, and not silence.
    expect(seconds).toBeGreaterThan(3);
    expect(seconds).toBeLessThan(8);
    expect(rms(wav.samples)).toBeGreaterThan(300);
    // Rendered once: the μ-law is kept under the data folder, and asked again it is the same audio.
    expect(
      readdirSync(join(s.t.dataDir, 'speech')).filter((f) => f.endsWith('.pcmu')),
    ).toHaveLength(1);
    const again = await preview(s.t, s.admin, { text, language: 'en-us' });
    expect(decodeWav(Buffer.from(await again.arrayBuffer())).samples).toEqual(wav.samples);
    // Another language is another rendering.
    const german = await preview(s.t, s.admin, { text: 'Guten Tag.', language: 'de' });
    expect(german.status).toBe(200);
    expect(
      readdirSync(join(s.t.dataDir, 'speech')).filter((f) => f.endsWith('.pcmu')),
    ).toHaveLength(2);
  }, 30_000);

  it('refuses bad text and unknown languages with clear 400s, and agents with 403', async () => {
    const s = await start();
    expect(await expectError(await preview(s.t, s.admin, { text: '', language: 'en-us' }))).toEqual(
      { status: 400, code: 'bad_request', message: 'Enter the text to speak' },
    );
    expect(
      await expectError(await preview(s.t, s.admin, { text: 'x'.repeat(1001), language: 'en-us' })),
    ).toMatchObject({ status: 400, message: 'The text may be at most 1000 characters' });
    expect(
      await expectError(await preview(s.t, s.admin, { text: 'Hello', language: 'xx-nowhere' })),
    ).toEqual({
      status: 400,
      code: 'unknown_language',
      message: 'There is no voice for the language xx-nowhere',
    });
    expect(
      await expectError(await preview(s.t, s.admin, { text: 'Hello', language: '-w /etc/passwd' })),
    ).toMatchObject({ status: 400, code: 'unknown_language' });
    expect(
      await expectError(await preview(s.t, s.admin, { text: 'Hello', language: 'en-us', x: 1 })),
    ).toMatchObject({ status: 400, message: 'Unknown field: "x"' });
    expect(
      await expectError(await preview(s.t, s.admin, { text: 5, language: 'en-us' })),
    ).toMatchObject({ status: 400, message: 'Field text must be a string' });
    expect(
      await expectError(await preview(s.t, s.agent, { text: 'Hello', language: 'en-us' })),
    ).toMatchObject({ status: 403 });
  }, 30_000);

  it('plays a stored announcement: text rendered, or a WAV file resampled; MP3 is refused', async () => {
    const s = await start();
    const sync = s.sync;
    await sync.setMapItem('guidance', 'gdn-text', {
      name: 'Closed',
      kind: 'tts',
      text: 'We are closed.',
      language: 'en-gb',
    });
    const audio = (id: string, cookie = s.admin) =>
      fetch(`${s.t.url}/api/guidance/${id}/audio`, { headers: { Cookie: cookie } });
    const text = await audio('gdn-text');
    expect(text.status).toBe(200);
    expect(decodeWav(Buffer.from(await text.arrayBuffer())).samples.length).toBeGreaterThan(4000);
    expect((await audio('gdn-text', s.agent)).status).toBe(403);

    const upload = (name: string, body: Buffer) =>
      fetch(`${s.t.url}/api/audio?name=${name}`, {
        method: 'POST',
        headers: { Cookie: s.admin },
        body: new Uint8Array(body),
      }).then((r) => r.json() as Promise<{ id: string }>);
    const wav = await upload('hold.wav', wavFile(1.5, 44100));
    await sync.setMapItem('guidance', 'gdn-file', { name: 'Hold', kind: 'audio', audioId: wav.id });
    const file = await audio('gdn-file');
    expect(file.status).toBe(200);
    const samples = decodeWav(Buffer.from(await file.arrayBuffer())).samples;
    expect(samples.length).toBe(12000);
    expect(loudest(samples, 8000, [220, 440, 880])).toBe(440);
    const part = await fetch(`${s.t.url}/api/guidance/gdn-file/audio`, {
      headers: { Cookie: s.admin, Range: 'bytes=0-43' },
    });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).toString('latin1', 0, 4)).toBe('RIFF');

    const mp3 = await upload('song.mp3', mp3File(40));
    await sync.setMapItem('guidance', 'gdn-mp3', { name: 'Song', kind: 'audio', audioId: mp3.id });
    expect(await expectError(await audio('gdn-mp3'))).toMatchObject({
      status: 422,
      code: 'audio_unplayable',
      message: 'song.mp3 is MP3; only WAV files can be played to callers for now',
    });
    expect(await expectError(await audio('gdn-none'))).toMatchObject({ status: 404 });

    // The editor previews a file before the announcement is saved.
    const filePreview = await preview(s.t, s.admin, { audioId: wav.id });
    expect(decodeWav(Buffer.from(await filePreview.arrayBuffer())).samples.length).toBe(12000);
    expect(
      await expectError(await preview(s.t, s.admin, { audioId: wav.id, text: 'Hi' })),
    ).toMatchObject({ status: 400, message: 'Send either text and language, or audioId' });
    expect(await expectError(await preview(s.t, s.admin, { text: 'Hi' }))).toMatchObject({
      status: 400,
      message: 'Send the text and its language',
    });
  }, 30_000);
});
