/**
 * Audio files and announcements on the Twilio backend, as on the embedded one: an admin uploads hold
 * music (described in Twilio Sync's `audio` map through the REST API, the file on this server's
 * disk), everyone plays it, an admin hears a stored announcement (text or file) as callers will, a
 * file an announcement uses cannot be deleted, and callers hear a file announcement through a signed
 * `<Play>` URL.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audioRecord } from '../../../../src/contracts/records/audio';
import { decodeWav } from '../../../../server/platform/audio/pcm';
import { mp3File, wavFile } from '../../../support/audio-fixtures';
import { ADA, ALICE, SALES_NUMBER, seedTeam, WED_OPEN } from './fixture';
import { incomingCall, sid, startTwilioApp, type TwilioTestApp } from '../twilio/support';
import { pathOf } from './twiml-support';

let t: TwilioTestApp;
let admin: string;
let agent: string;

beforeAll(async () => {
  t = await startTwilioApp({ now: WED_OPEN });
  const cookies = await seedTeam(t);
  admin = cookies[ADA]!;
  agent = cookies[ALICE]!;
}, 30_000);
afterAll(() => t.close());

const upload = async (name: string, body: Buffer): Promise<Response> =>
  fetch(`${t.url}/api/audio?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: { Cookie: admin, 'Content-Type': 'audio/wav' },
    body: new Uint8Array(body),
  });
const stored = () => t.api.maps.get('audio') ?? new Map();
const files = () => readdirSync(join(t.dataDir, 'audio'));

describe('audio files on Twilio', () => {
  let id: string;
  const wav = wavFile(1.5, 44100);

  it('stores an upload: described in Twilio Sync, the file here, served to everyone with ranges', async () => {
    const res = await upload('Hold music.wav', wav);
    expect(res.status).toBe(201);
    ({ id } = (await res.json()) as { id: string });
    const item = stored().get(id)?.data;
    expect(item).toMatchObject({ name: 'Hold music.wav', kind: 'wav', size: wav.length });
    expect(audioRecord.check(item)).toMatchObject({ ok: true, value: item });
    expect(files()).toEqual([`${id}.wav`]);
    const whole = await fetch(`${t.url}/api/audio/${id}`, { headers: { Cookie: agent } });
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(wav)).toBe(true);
    const part = await fetch(`${t.url}/api/audio/${id}`, {
      headers: { Cookie: agent, Range: 'bytes=0-3' },
    });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).toString('latin1')).toBe('RIFF');
    // What is not audio is refused for what it is, and nothing is kept.
    const html = await upload('song.wav', Buffer.from('<html>not audio</html>'));
    expect(html.status).toBe(415);
    expect(stored().size).toBe(1);
  });

  it("plays a stored announcement to an admin as callers hear it: text, or the file's", async () => {
    const audio = (name: string) =>
      fetch(`${t.url}/api/guidance/${name}/audio`, { headers: { Cookie: admin } });
    const text = await audio('gd-closed');
    expect(text.status).toBe(200);
    expect(decodeWav(Buffer.from(await text.arrayBuffer())).samples.length).toBeGreaterThan(4000);
    t.api.setMapItem('guidance', 'gd-file', { name: 'On hold', kind: 'audio', audioId: id });
    const file = await audio('gd-file');
    expect(file.status).toBe(200);
    expect(decodeWav(Buffer.from(await file.arrayBuffer())).samples.length).toBe(12000);
    expect((await audio('gd-nothing')).status).toBe(404);
  });

  it('callers hear a file announcement through a signed Play URL', async () => {
    t.api.setMapItem('guidance', 'gd-open', { name: 'Greeting', kind: 'audio', audioId: id });
    t.clock.now += 60_000; // past the configuration cache
    const res = await t.webhook(
      '/api/twilio/voice',
      incomingCall(sid(), '+447700900123', SALES_NUMBER),
    );
    const xml = await res.text();
    const play = /<Play>([^<]+)<\/Play>/.exec(xml)?.[1]?.replace(/&amp;/g, '&');
    expect(play).toContain('/api/twilio/audio/gd-open.wav');
    const served = await fetch(`${t.url}${pathOf(play!)}`);
    expect(served.status).toBe(200);
    expect(decodeWav(Buffer.from(await served.arrayBuffer())).samples.length).toBe(12000);
  });

  it('refuses to delete a file an announcement uses, naming it; deletes it from Sync and disk otherwise', async () => {
    const remove = (cookie: string) =>
      fetch(`${t.url}/api/audio/${id}`, { method: 'DELETE', headers: { Cookie: cookie } });
    const refused = await remove(admin);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
      /the announcements (Greeting, On hold|On hold, Greeting)/,
    );
    t.api.maps.get('guidance')!.delete('gd-file');
    t.api.setMapItem('guidance', 'gd-open', {
      name: 'Greeting',
      kind: 'tts',
      text: 'Welcome to Sales.',
      language: 'en-gb',
    });
    expect((await remove(agent)).status).toBe(403);
    expect((await remove(admin)).status).toBe(204);
    expect(stored().has(id)).toBe(false);
    expect(files()).toEqual([]);
    expect((await fetch(`${t.url}/api/audio/${id}`, { headers: { Cookie: agent } })).status).toBe(
      404,
    );
  });

  it('an MP3 is stored and played to people, but only WAV reaches callers (as on the embedded backend)', async () => {
    const res = await upload('song.mp3', mp3File(40));
    expect(res.status).toBe(201);
    const { id: mp3 } = (await res.json()) as { id: string };
    t.api.setMapItem('guidance', 'gd-mp3', { name: 'Song', kind: 'audio', audioId: mp3 });
    const refused = await fetch(`${t.url}/api/guidance/gd-mp3/audio`, {
      headers: { Cookie: admin },
    });
    expect(refused.status).toBe(422);
  });
});
