import { request } from 'node:http';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { audioRecord } from '../../../../src/contracts/records/audio';
import { audioDuration, sniffAudio } from '../../../../server/audio/sniff';
import { mp3File, oggOpusFile, wavFile } from '../../../support/audio-fixtures';
import { postJson, removeDir, sessionCookieOf, startApp, tempDir, type TestApp } from '../support';

describe('sniffing audio from its bytes', () => {
  const duration = (file: Buffer) => {
    const kind = sniffAudio(file.subarray(0, 65536));
    return kind && audioDuration(kind, file.subarray(0, 65536), file.subarray(-65536), file.length);
  };

  it('recognises WAV, MP3 (with and without ID3) and Ogg Opus, and reads how long each plays', () => {
    expect(sniffAudio(wavFile(1))).toBe('wav');
    expect(duration(wavFile(2.5))).toBeCloseTo(2.5, 3);
    expect(sniffAudio(mp3File(10))).toBe('mp3');
    expect(sniffAudio(mp3File(10, false))).toBe('mp3');
    // 38 frames of 1152 samples at 44.1 kHz ≈ 0.993 s (CBR estimate from the size and bitrate).
    expect(duration(mp3File(38))).toBeCloseTo((38 * 417 * 8) / 128000, 3);
    expect(sniffAudio(oggOpusFile(3))).toBe('ogg');
    expect(duration(oggOpusFile(3))).toBeCloseTo(3, 3);
  });

  it('refuses what is not audio, whatever it is called', () => {
    for (const bytes of [
      Buffer.from('<html><script>alert(1)</script></html>'),
      Buffer.from('%PDF-1.7'),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.alloc(0),
      Buffer.from('RIFF\0\0\0\0AVI LIST'),
    ]) {
      expect(sniffAudio(bytes)).toBeNull();
    }
  });

  it('finds no duration in a file cut off mid-upload', () => {
    const wav = wavFile(2);
    const cut = wav.subarray(0, wav.length / 2);
    expect(audioDuration('wav', cut, cut, cut.length)).toBeNull();
    const ogg = oggOpusFile(2, false);
    expect(audioDuration('ogg', ogg, ogg, ogg.length)).toBeNull();
  });
});

const running: Array<{ t: TestApp }> = [];
afterEach(async () => {
  for (const { t } of running.splice(0)) {
    await t.close();
    removeDir(t.dataDir);
  }
});

async function start() {
  const dataDir = tempDir();
  const t = await startApp({}, { dataDir });
  running.push({ t });
  const sync = t.sync;
  const admin = sessionCookieOf(
    await postJson(`${t.url}/api/session/local`, { name: 'Ada', email: 'ada@x.io' }),
  )!;
  const agent = sessionCookieOf(
    await postJson(`${t.url}/api/session/local`, { name: 'Tom', email: 'tom@x.io' }),
  )!;
  const upload = (cookie: string, name: string, body: Buffer, type = 'audio/wav') =>
    fetch(`${t.url}/api/audio?name=${encodeURIComponent(name)}`, {
      method: 'POST',
      headers: { Cookie: cookie, 'Content-Type': type },
      body: new Uint8Array(body),
    });
  const files = () => readdirSync(join(dataDir, 'audio'));
  /** An upload as an admin's browser sends it, byte by byte, for tests that cut it short. */
  const rawUpload = (name: string, contentLength: number) => {
    const url = new URL(`${t.url}/api/audio?name=${encodeURIComponent(name)}`);
    return request({
      host: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      method: 'POST',
      headers: { Cookie: admin, 'Content-Length': String(contentLength) },
    });
  };
  return { t, sync, admin, agent, upload, files, rawUpload };
}

describe('/api/audio', () => {
  it('stores an upload under an id, describes it in the audio map, and serves it with ranges', async () => {
    const s = await start();
    const wav = wavFile(1.5);
    const res = await s.upload(s.admin, '../../etc/Greeting.wav', wav);
    expect(res.status).toBe(201);
    const body = (await res.json()) as { id: string; name: string; duration: number; size: number };
    expect(body).toMatchObject({
      name: 'Greeting.wav',
      kind: 'wav',
      size: wav.length,
      duration: 1.5,
    });
    const item = (await s.sync.getMapItem('audio', body.id))?.data;
    expect(item).toMatchObject({ name: 'Greeting.wav', size: wav.length });
    // The item is the audio record the server writes.
    expect(audioRecord.check(item)).toMatchObject({ ok: true, value: item });
    expect(s.files()).toEqual([`${body.id}.wav`]);

    const whole = await fetch(`${s.t.url}/api/audio/${body.id}`, { headers: { Cookie: s.agent } });
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('audio/wav');
    expect(Buffer.from(await whole.arrayBuffer()).equals(wav)).toBe(true);
    const part = await fetch(`${s.t.url}/api/audio/${body.id}`, {
      headers: { Cookie: s.agent, Range: 'bytes=4-11' },
    });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 4-11/${wav.length}`);
    expect(Buffer.from(await part.arrayBuffer()).toString('latin1')).toBe(
      wav.subarray(4, 12).toString('latin1'),
    );
    const bad = await fetch(`${s.t.url}/api/audio/${body.id}`, {
      headers: { Cookie: s.agent, Range: `bytes=${wav.length + 5}-` },
    });
    expect(bad.status).toBe(416);
  });

  it('refuses what is not audio (a forged type and name change nothing) and keeps no file', async () => {
    const s = await start();
    const res = await s.upload(
      s.admin,
      'song.mp3',
      Buffer.from('<html>not audio</html>'),
      'audio/mpeg',
    );
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_audio');
    expect(s.files()).toEqual([]);
    expect((await s.sync.mapItems('audio')).size).toBe(0);
  });

  it('refuses a file cut off before its end, and keeps nothing', async () => {
    const s = await start();
    const wav = wavFile(2);
    const res = await s.upload(s.admin, 'cut.wav', wav.subarray(0, 5000));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('audio_truncated');
    expect(s.files()).toEqual([]);
  });

  it('keeps nothing when the client drops the connection mid-upload', async () => {
    const s = await start();
    await new Promise<void>((resolve) => {
      const req = s.rawUpload('x.wav', 100_000);
      req.on('error', () => resolve());
      req.write(wavFile(1).subarray(0, 4000));
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 200);
    });
    for (let i = 0; i < 50 && s.files().length > 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(s.files()).toEqual([]);
  });

  it('keeps nothing when the client cancels after sending the last byte, before the answer', async () => {
    const s = await start();
    const body = wavFile(30);
    await new Promise<void>((resolve) => {
      const req = s.rawUpload('late-cancel.wav', body.length);
      req.on('error', () => resolve());
      req.on('response', () => resolve());
      // The whole body leaves, then the person cancels (the browser closes the connection).
      req.end(body, () => {
        req.destroy();
        resolve();
      });
    });
    // The half-stored upload is removed once the server sees the connection close (a moment later
    // on a busy machine), and no item was written.
    await expect.poll(() => s.files(), { timeout: 10_000 }).toEqual([]);
    expect((await s.sync.mapItems('audio')).size).toBe(0);
  });

  it('refuses an agent, and a file over the size limit', async () => {
    const s = await start();
    expect((await s.upload(s.agent, 'a.wav', wavFile(0.5))).status).toBe(403);
    // Declared too large: refused before a byte is stored.
    const status = await new Promise<number>((resolve, reject) => {
      const req = s.rawUpload('big.wav', 65 * 1024 * 1024);
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write(Buffer.alloc(10));
    });
    expect(status).toBe(413);
    expect(s.files()).toEqual([]);
  });

  it('refuses to delete a file an announcement uses, saying which; deletes it otherwise', async () => {
    const s = await start();
    const { id } = (await (await s.upload(s.admin, 'hold.ogg', oggOpusFile(2))).json()) as {
      id: string;
    };
    await s.sync.setMapItem('guidance', 'g1', { name: 'Closed message', audioId: id });
    const refused = await fetch(`${s.t.url}/api/audio/${id}`, {
      method: 'DELETE',
      headers: { Cookie: s.admin },
    });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
      'Closed message',
    );
    expect(s.files()).toEqual([`${id}.ogg`]);
    await s.sync.removeMapItem('guidance', 'g1');
    const agent = await fetch(`${s.t.url}/api/audio/${id}`, {
      method: 'DELETE',
      headers: { Cookie: s.agent },
    });
    expect(agent.status).toBe(403);
    const done = await fetch(`${s.t.url}/api/audio/${id}`, {
      method: 'DELETE',
      headers: { Cookie: s.admin },
    });
    expect(done.status).toBe(204);
    expect(s.files()).toEqual([]);
    expect((await s.sync.getMapItem('audio', id))?.data).toBeUndefined();
    expect(existsSync(join(s.t.dataDir, 'audio'))).toBe(true);
  });
});
