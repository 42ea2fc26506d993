/**
 * Text to speech for announcements: eSpeak NG (the `espeak-ng` package, compiled to WebAssembly) run
 * in one worker thread, so a render never stalls the event loop that carries live calls' audio. The
 * module is compiled once per worker; each render gets a fresh instance (eSpeak's `main` keeps global
 * state), renders run one at a time, and one that takes too long ends the worker (a new one starts on
 * the next render). The result is what a caller's leg carries, 8 kHz μ-law, cached on disk under
 * `<data>/speech/` by a hash of (engine version, language, text).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { CALLER_LANGUAGES } from './languages';
import { decodeWav, resample, toPcmu } from '../platform/audio/pcm';
import { SAMPLE_RATE } from '../platform/audio/g711';

/** A language eSpeak NG speaks: its voice code (`en-us`) and its name (`English (America)`). */
export interface Language {
  code: string;
  name: string;
}

export type SpeechErrorKind = 'unknown_language' | 'too_long' | 'busy' | 'timeout' | 'failed';

export class SpeechError extends Error {
  override readonly name = 'SpeechError';
  constructor(
    readonly kind: SpeechErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface SpeechOptions {
  dataDir: string;
  /** A render taking longer than this ends the worker and fails (default 15 s). */
  timeoutMs?: number;
  /** Speech longer than this is refused (default 180 s). */
  maxSeconds?: number;
  /** Renders waiting their turn beyond this are refused as busy (default 16). */
  maxQueue?: number;
}

export interface Speech {
  /** The engine and the conversion, part of every cache key: a new version renders anew. */
  readonly engine: string;
  /** The languages callers may hear (languages.ts) that eSpeak NG has a voice for, by name. */
  languages(): Promise<readonly Language[]>;
  /** `text` spoken in `language` as 8 kHz μ-law (one byte a sample), from the cache when rendered before. */
  render(text: string, language: string): Promise<Buffer>;
  close(): Promise<void>;
}

const require = createRequire(import.meta.url);
const ESPEAK_JS = require.resolve('espeak-ng');
const ESPEAK_WASM = join(dirname(ESPEAK_JS), 'espeak-ng.wasm');
const ESPEAK_VERSION = (
  JSON.parse(readFileSync(join(dirname(ESPEAK_JS), '..', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;
/** Bump the suffix when the conversion to telephone audio changes. */
export const SPEECH_ENGINE = `espeak-ng ${ESPEAK_VERSION}; pcmu 8000/1`;

/**
 * The worker, as plain JavaScript (it runs under Node, tsx and the test runner alike). It compiles
 * the WebAssembly once and answers `{ id, args, input }` with what eSpeak printed and the WAV it wrote.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { pathToFileURL } = require('node:url');
let loaded = null;
const load = () =>
  (loaded ??= Promise.all([
    WebAssembly.compile(readFileSync(workerData.wasm)),
    import(pathToFileURL(workerData.js).href).then((m) => m.default),
  ]));
parentPort.on('message', async ({ id, args, input }) => {
  try {
    const [mod, factory] = await load();
    const out = [];
    const es = await factory({
      arguments: args,
      preRun: [(m) => { if (input !== null) m.FS.writeFile('/in.txt', input); }],
      print: (s) => out.push(String(s)),
      printErr: (s) => out.push(String(s)),
      instantiateWasm: (imports, done) => {
        WebAssembly.instantiate(mod, imports).then((instance) => done(instance, mod));
        return {};
      },
    });
    let wav = null;
    try { wav = es.FS.readFile('/out.wav'); } catch { wav = null; }
    parentPort.postMessage({ id, out, wav }, wav ? [wav.buffer] : []);
  } catch (e) {
    parentPort.postMessage({ id, error: String((e && e.message) || e) });
  }
});
`;

interface WorkerAnswer {
  id: number;
  out?: string[];
  wav?: Uint8Array | null;
  error?: string;
}

/** Parses `espeak-ng --voices`: `Pty Language Age/Gender VoiceName File Other Languages`. */
export function parseVoices(lines: readonly string[]): Language[] {
  const seen = new Map<string, Language>();
  for (const line of lines) {
    const cells = line.trim().split(/\s+/);
    if (cells.length < 5 || !/^\d+$/.test(cells[0]!)) continue;
    const code = cells[1]!.toLowerCase();
    if (!/^[a-z0-9-]{2,40}$/.test(code) || seen.has(code)) continue;
    const name = cells[3]!.replace(/_/g, ' ').replace(/\s+/g, ' ').trim();
    seen.set(code, { code, name: name === '' ? code : name });
  }
  return [...seen.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export function createSpeech(options: SpeechOptions): Speech {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxSeconds = options.maxSeconds ?? 180;
  const maxQueue = options.maxQueue ?? 16;
  const cacheDir = join(options.dataDir, 'speech');
  mkdirSync(cacheDir, { recursive: true });

  let worker: Worker | null = null;
  let nextId = 1;
  const pending = new Map<number, (answer: WorkerAnswer) => void>();
  let queue: Promise<unknown> = Promise.resolve();
  let waiting = 0;
  let languageList: Promise<Language[]> | null = null;
  let closed = false;

  const startWorker = (): Worker => {
    if (worker) return worker;
    const w = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { js: ESPEAK_JS, wasm: ESPEAK_WASM },
    });
    w.unref();
    w.on('message', (answer: WorkerAnswer) => {
      const done = pending.get(answer.id);
      pending.delete(answer.id);
      done?.(answer);
    });
    const fail = (message: string) => {
      if (worker === w) worker = null;
      for (const [id, done] of pending) {
        pending.delete(id);
        done({ id, error: message });
      }
    };
    w.on('error', (err) => fail(err.message));
    w.on('exit', () => fail('The speech engine stopped'));
    worker = w;
    return w;
  };

  /** Runs eSpeak once, after every earlier run has finished. */
  const run = (args: string[], input: string | null): Promise<WorkerAnswer> => {
    if (closed) return Promise.reject(new SpeechError('failed', 'The speech engine is shut down'));
    if (waiting >= maxQueue) {
      return Promise.reject(
        new SpeechError('busy', 'The speech engine is busy; try again in a moment'),
      );
    }
    waiting++;
    const turn = queue.then(
      () =>
        new Promise<WorkerAnswer>((resolve, reject) => {
          const w = startWorker();
          const id = nextId++;
          const timer = setTimeout(() => {
            pending.delete(id);
            if (worker === w) worker = null;
            void w.terminate();
            reject(new SpeechError('timeout', 'Speaking this text took too long'));
          }, timeoutMs);
          pending.set(id, (answer) => {
            clearTimeout(timer);
            if (answer.error !== undefined) {
              reject(new SpeechError('failed', `The speech engine failed: ${answer.error}`));
            } else resolve(answer);
          });
          w.postMessage({ id, args, input });
        }),
    );
    queue = turn.catch(() => undefined).finally(() => waiting--);
    return turn;
  };

  /** Every voice eSpeak NG has: an announcement stored in one still renders. */
  const voices = (): Promise<Language[]> => {
    languageList ??= run(['--voices'], null).then(
      (answer) => {
        const list = parseVoices(answer.out ?? []);
        if (list.length === 0) throw new SpeechError('failed', 'The speech engine lists no voices');
        return list;
      },
      (err: unknown) => {
        languageList = null;
        throw err;
      },
    );
    return languageList;
  };
  /** The curated list (languages.ts) that eSpeak NG speaks: what an admin may choose. */
  const languages = async (): Promise<Language[]> => {
    const have = new Set((await voices()).map((l) => l.code));
    return CALLER_LANGUAGES.filter((l) => have.has(l.code)).map(({ code, name }) => ({
      code,
      name,
    }));
  };

  async function render(text: string, language: string): Promise<Buffer> {
    const known = await voices();
    if (!known.some((l) => l.code === language)) {
      throw new SpeechError('unknown_language', `There is no voice for the language ${language}`);
    }
    const key = createHash('sha256')
      .update(JSON.stringify([SPEECH_ENGINE, language, text]))
      .digest('hex');
    const path = join(cacheDir, `${key}.pcmu`);
    const cached = await readFile(path).catch(() => null);
    if (cached !== null && cached.length > 0) return cached;

    const answer = await run(['-w', '/out.wav', '-v', language, '-f', '/in.txt'], text);
    if (!answer.wav || answer.wav.length <= 44) {
      const said = (answer.out ?? []).find((l) => /error/i.test(l));
      throw new SpeechError('failed', `The speech engine made no audio${said ? `: ${said}` : ''}`);
    }
    const wav = Buffer.from(answer.wav.buffer, answer.wav.byteOffset, answer.wav.byteLength);
    const pcm = decodeWav(wav);
    if (pcm.samples.length / pcm.rate > maxSeconds) {
      throw new SpeechError(
        'too_long',
        `Spoken, this text lasts more than ${maxSeconds} seconds; shorten it`,
      );
    }
    const pcmu = toPcmu(resample(pcm, SAMPLE_RATE));
    const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(temp, pcmu);
      await rename(temp, path);
    } catch {
      // Cache writes are best effort: the audio is still returned.
      await rm(temp, { force: true });
    }
    return pcmu;
  }

  return {
    engine: SPEECH_ENGINE,
    languages,
    render,
    async close() {
      closed = true;
      const w = worker;
      worker = null;
      if (w) await w.terminate();
    },
  };
}
