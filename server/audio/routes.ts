/**
 * Audio files for announcements. Uploads stream to a temporary file under `<data>/audio` (never held
 * in memory), are recognised from their bytes (sniff.ts), and only then renamed into place and described
 * in the `audio` Sync map through Sync's REST API (stored.ts);
 * anything refused or cut off leaves no file behind. Files are served with range requests; deleting
 * is refused while an announcement (`guidance` map) uses the file.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync } from 'node:fs';
import { open, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { API } from '../../src/contracts/api';
import { AUDIO_ID } from '../../src/contracts/records/audio';
import type { Auth } from '../identity/sessions';
import { HttpError, sendJson } from '../platform/http/errors';
import type { RequestContext, Router } from '../platform/http/router';
import { youngGcPacer } from '../platform/lib/young-gc';
import { audioDuration, CONTENT_TYPES, sniffAudio, type AudioKind } from './sniff';
import type { MediaMaps } from './stored';

/** 64 MiB: minutes of WAV, an hour of MP3. */
export const DEFAULT_MAX_AUDIO_BYTES = 64 * 1024 * 1024;
const PROBE_BYTES = 64 * 1024;

export interface AudioRouteDeps {
  auth: Auth;
  maps: MediaMaps;
  dataDir: string;
  maxBytes?: number;
}

/** The name a person gave the file, as a label only: no path, no control characters, at most 120 characters. */
export function cleanFileName(raw: string | null): string {
  const base = (raw ?? '').split(/[\\/]/).pop() ?? '';
  const name = base
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 120);
  if (name === '' || name === '.' || name === '..') {
    throw new HttpError(400, 'bad_request', 'Give the file a name (the `name` query parameter)');
  }
  return name;
}

export function registerAudioRoutes(router: Router, deps: AudioRouteDeps): void {
  const dir = join(deps.dataDir, 'audio');
  mkdirSync(dir, { recursive: true });
  const maxBytes = deps.maxBytes ?? DEFAULT_MAX_AUDIO_BYTES;
  const { maps } = deps;
  const fileOf = (id: string, kind: AudioKind) => join(dir, `${id}.${kind}`);
  const describe = async (id: string): Promise<{ kind: AudioKind; name: string }> => {
    if (!AUDIO_ID.test(id)) throw new HttpError(404, 'not_found', 'No such audio file');
    const item = await maps.audio(id);
    const kind = item?.kind;
    if (item === null || (kind !== 'wav' && kind !== 'mp3' && kind !== 'ogg')) {
      throw new HttpError(404, 'not_found', 'No such audio file');
    }
    return { kind, name: typeof item.name === 'string' ? item.name : id };
  };

  router.route(API.uploadAudio, async (ctx) => {
    const admin = deps.auth.requireAdmin(ctx);
    const name = cleanFileName(ctx.url.searchParams.get('name'));
    const declared = ctx.req.headers['content-length'];
    if (declared !== undefined && Number(declared) > maxBytes) throw tooLarge(maxBytes);
    const id = `aud-${randomBytes(9)
      .toString('base64url')
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '0')
      .slice(0, 12)}`;
    const temp = join(dir, `.upload-${id}`);
    let size = 0;
    // Chunks are dead once written: collecting them every few MB keeps the upload's footprint small.
    const pace = youngGcPacer();
    const limit = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        pace(chunk.length);
        if (size > maxBytes) done(tooLarge(maxBytes));
        else done(null, chunk);
      },
    });
    // A person who cancels after the last byte left their browser must not find the file stored:
    // a connection closed before the answer is a cancelled upload, checked again before committing.
    let gone = false;
    ctx.res.once('close', () => {
      if (!ctx.res.writableFinished) gone = true;
    });
    const cancelled = () =>
      new HttpError(400, 'audio_truncated', 'The upload was cancelled; nothing was kept');
    try {
      await pipeline(ctx.req, limit, createWriteStream(temp, { flags: 'wx' }));
      if (size === 0) throw new HttpError(400, 'not_audio', 'The file is empty');
      const { head, tail } = await probe(temp, size);
      const kind = sniffAudio(head);
      if (kind === null) {
        throw new HttpError(
          415,
          'not_audio',
          'This file is not WAV, MP3 or Ogg Opus audio (its contents were checked, not its name)',
        );
      }
      const duration = audioDuration(kind, head, tail, size);
      if (duration === null || !Number.isFinite(duration) || duration <= 0) {
        throw new HttpError(
          400,
          'audio_truncated',
          'This audio file is incomplete or damaged (it may have been cut off during the upload)',
        );
      }
      if (gone) throw cancelled();
      await rename(temp, fileOf(id, kind));
      const item = {
        name,
        kind,
        contentType: CONTENT_TYPES[kind],
        size,
        duration: Math.round(duration * 1000) / 1000,
        uploadedBy: admin.identity,
        uploadedAt: new Date(ctx.now).toISOString(),
      };
      try {
        await maps.setAudio(id, item);
        // The write is a REST request: a person may have cancelled meanwhile.
        if (gone) {
          await maps.removeAudio(id);
          throw cancelled();
        }
      } catch (err) {
        await rm(fileOf(id, kind), { force: true });
        throw err;
      }
      sendJson(ctx.res, 201, { id, ...item });
    } catch (err) {
      await rm(temp, { force: true });
      if (err instanceof HttpError) {
        // The rest of a refused body is not read: the connection closes after the answer.
        ctx.res.setHeader('Connection', 'close');
        throw err;
      }
      if ((err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE' || ctx.req.aborted) {
        throw new HttpError(400, 'audio_truncated', 'The upload was interrupted; nothing was kept');
      }
      throw err;
    }
  });

  router.route(API.audioFile, async (ctx) => {
    deps.auth.requireUser(ctx);
    const id = ctx.params.id ?? '';
    const { kind } = await describe(id);
    const path = fileOf(id, kind);
    const { size } = await stat(path).catch(() => {
      throw new HttpError(404, 'not_found', 'No such audio file');
    });
    serveRange(ctx, path, size, CONTENT_TYPES[kind]);
  });

  router.route(API.deleteAudio, async (ctx) => {
    deps.auth.requireAdmin(ctx);
    const id = ctx.params.id ?? '';
    const { kind, name } = await describe(id);
    const users = [...(await maps.announcements()).entries()]
      .filter(([, g]) => g.audioId === id)
      .map(([key, g]) => (typeof g.name === 'string' ? g.name : key));
    if (users.length > 0) {
      throw new HttpError(
        409,
        'audio_in_use',
        `${name} is used by ${users.length === 1 ? 'the announcement' : 'the announcements'} ${users.join(', ')}; choose another file there first`,
      );
    }
    await maps.removeAudio(id);
    await rm(fileOf(id, kind), { force: true });
    ctx.res.writeHead(204, { 'Cache-Control': 'no-store' });
    ctx.res.end();
  });
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(
    413,
    'payload_too_large',
    `Audio files may be at most ${Math.floor(maxBytes / (1024 * 1024))} MB`,
  );
}

async function probe(path: string, size: number): Promise<{ head: Buffer; tail: Buffer }> {
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(Math.min(PROBE_BYTES, size));
    await file.read(head, 0, head.length, 0);
    const tail = Buffer.alloc(Math.min(PROBE_BYTES, size));
    await file.read(tail, 0, tail.length, size - tail.length);
    return { head, tail };
  } finally {
    await file.close();
  }
}

/** 200 with the whole file, or 206 for one `bytes=a-b` range (what audio elements ask for); 416 otherwise. */
export function serveRange(ctx: RequestContext, path: string, size: number, type: string): void {
  const { req, res } = ctx;
  const headers: Record<string, string> = {
    'Content-Type': type,
    'Accept-Ranges': 'bytes',
    'Cache-Control': 'private, max-age=3600',
  };
  const range = req.headers.range;
  let start = 0;
  let end = size - 1;
  let status = 200;
  if (range !== undefined) {
    const m = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
    if (m && (m[1] !== '' || m[2] !== '')) {
      if (m[1] === '') {
        start = Math.max(0, size - Number(m[2]));
      } else {
        start = Number(m[1]);
        if (m[2] !== '') end = Math.min(Number(m[2]), size - 1);
      }
    }
    if (!m || start > end || start >= size) {
      res.writeHead(416, { 'Content-Range': `bytes */${size}` });
      res.end();
      return;
    }
    status = 206;
    headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
  }
  headers['Content-Length'] = String(end - start + 1);
  res.writeHead(status, headers);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  createReadStream(path, { start, end })
    .on('error', () => res.destroy())
    .pipe(res);
}
