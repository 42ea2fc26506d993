/**
 * Issue 12 benchmark: uploading a 50 MB audio file raises the server's memory by less than 10 MB
 * (the body is streamed to disk). The real server (child process) takes a 50 MB WAV on
 * `POST /api/audio` from a signed-in admin, sent as fast as loopback carries it; its resident memory
 * (VmRSS from /proc) is sampled every 5 ms, and the rise is the peak during the upload minus the
 * level just before it. Beside it, the floor: a bare Node http server in its own process that only
 * pipes the request body to a file, measured the same way. Runs interleaved.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiSignIn } from '../model/support/app';
import { startServer } from '../support/server';
import { fmt, median, writeSection } from './report';

const SIZE = 50 * 1024 * 1024;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const CHUNK = 64 * 1024;

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

/** A valid 16-bit mono 8 kHz WAV header for `size` bytes in all; the samples are made while sending. */
function wavHeader(size: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(size - 8, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(size - 44, 40);
  return header;
}

/** Sends the file and samples `pid`'s RSS until the answer: the rise over the level before. */
async function upload(
  pid: number,
  url: string,
  headers: Record<string, string>,
): Promise<{ riseBytes: number; status: number; ms: number }> {
  await new Promise((r) => setTimeout(r, 300));
  const before = rssBytes(pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssBytes(pid));
  }, 5);
  const started = performance.now();
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'audio/wav', 'content-length': String(SIZE) },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    const tone = Buffer.alloc(CHUNK);
    for (let i = 0; i < CHUNK / 2; i++)
      tone.writeInt16LE(Math.round(6000 * Math.sin((2 * Math.PI * 440 * i) / 8000)), i * 2);
    let sent = 0;
    const write = (): void => {
      while (sent < SIZE) {
        let chunk: Buffer;
        if (sent === 0) chunk = Buffer.concat([wavHeader(SIZE), tone.subarray(44)]);
        else chunk = tone.subarray(0, Math.min(CHUNK, SIZE - sent));
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', write);
          return;
        }
      }
      req.end();
    };
    write();
  });
  const ms = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, rssBytes(pid));
  return { riseBytes: peak - before, status, ms };
}

/** The floor: a bare Node server that pipes each request body to a file. */
async function startBare(dir: string): Promise<{ pid: number; url: string; stop: () => void }> {
  const code = `
    const http = require('node:http'); const fs = require('node:fs'); const path = require('node:path');
    let n = 0;
    const server = http.createServer((req, res) => {
      const file = path.join(${JSON.stringify(dir)}, 'upload-' + (n++));
      req.pipe(fs.createWriteStream(file)).on('finish', () => { fs.rmSync(file); res.writeHead(201); res.end('{}'); });
    });
    server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port));
  `;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      const m = /port (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    });
  });
  return { pid: child.pid!, url: `http://127.0.0.1:${port}/upload`, stop: () => child.kill() };
}

export async function benchUpload(): Promise<string> {
  const appRuns: number[] = [];
  const bareRuns: number[] = [];
  const times: number[] = [];
  // Each run on a fresh process: the first big upload is the one that grows the heap (a warmed-up
  // process would hide it).
  for (let i = 0; i < RUNS; i++) {
    const app = await startServer();
    try {
      const { cookie } = await apiSignIn(app.url, 'Ada Admin', 'ada@example.com');
      const headers = { cookie: `sb_session=${cookie}`, origin: app.url };
      const a = await upload(app.process.pid!, `${app.url}/api/audio?name=big-${i}.wav`, headers);
      if (a.status !== 201) throw new Error(`the upload was answered ${a.status}`);
      appRuns.push(a.riseBytes);
      times.push(a.ms);
    } finally {
      await app.stop();
      app.cleanup();
    }
    const bareDir = mkdtempSync(join(tmpdir(), 'bare-upload-'));
    const bare = await startBare(bareDir);
    try {
      bareRuns.push((await upload(bare.pid, bare.url, {})).riseBytes);
    } finally {
      bare.stop();
      rmSync(bareDir, { recursive: true, force: true });
    }
  }
  const mb = (b: number) => fmt(b / (1024 * 1024), 1);
  const appMed = median(appRuns);
  const appMax = Math.max(...appRuns);
  const bareMed = median(bareRuns);
  const md = [
    '## Audio upload: server memory for a 50 MB file',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench upload\` (tests/bench/upload.ts): a 50 MB WAV sent to \`POST /api/audio\` by a signed-in admin as fast as loopback carries it, each of ${RUNS} runs on a freshly started server (the first big upload is the one that grows the heap), alternating with a bare Node server, also fresh, that only pipes the body to a file. Rise = peak VmRSS during the upload (sampled every 5 ms) minus VmRSS just before.`,
    '',
    '| | server | bare pipe to file |',
    '| --- | --- | --- |',
    `| RSS rise, median (MB) | ${mb(appMed)} | ${mb(bareMed)} |`,
    `| RSS rise, each run (MB) | ${appRuns.map(mb).join(', ')} | ${bareRuns.map(mb).join(', ')} |`,
    `| upload time, median (ms) | ${fmt(median(times))} | |`,
    '',
    `- Rise: median ${mb(appMed)} MB, worst ${mb(appMax)} MB (target < 10 MB): ${appMax < 10 * 1024 * 1024 ? 'met' : 'NOT met'}; median ${fmt(appMed / Math.max(bareMed, 1), 2)}× the bare pipe.`,
  ].join('\n');
  writeSection('upload', md);
  return md;
}
