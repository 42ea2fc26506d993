import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { HttpError } from './errors';
import {
  FIRST_ANSWERS_ID,
  FIRST_ANSWER_PATHS,
  type FirstAnswer,
} from '../../../src/contracts/api-session';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.wasm': 'application/wasm',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.ogg': 'audio/ogg',
};

const gzip = promisify(gzipCallback);
const COMPRESSIBLE = /^(text\/|application\/(json|manifest\+json|wasm)|image\/svg\+xml)/;

interface StaticFile {
  path: string;
  size: number;
  mtimeMs: number;
}

/** Vite fingerprints everything under /assets/, so those never change and cache forever. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Switchboard is not built yet</title></head>
<body><h1>Switchboard is not built yet</h1>
<p>The server is running, but the web app has not been built. Run <code>npm run build</code>
(or start with <code>npm start</code>, which builds first), then reload this page.</p>
</body></html>
`;

export interface StaticOptions {
  /**
   * What the page's first API requests would be answered right now, for this request (its cookie):
   * the page's HTML carries them, so the app reads them instead of asking (src/io/api/first-answers.ts).
   */
  firstAnswers?: (
    req: IncomingMessage,
    res: ServerResponse,
  ) => Readonly<Record<string, FirstAnswer>>;
}

/**
 * What every page's first screen waits on: the session (the guard's decision) and the sign-in
 * options (a signed-out visitor on any page is sent to /login, whose screen is in the main script).
 */
const EVERY_PAGE_ASKS: readonly string[] = FIRST_ANSWER_PATHS;

/**
 * JSON that cannot end the `<script>` element it sits in, nor be read as markup or as a line break
 * by an old parser.
 */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * Serves the Vite build with history fallback: files as they are, and every other GET/HEAD
 * navigation gets index.html so the client router can draw the route, with the answers its first
 * requests would get carried in it.
 */
export function createStaticHandler(distDir: string, options: StaticOptions = {}) {
  const root = normalize(distDir + sep);

  async function fileAt(pathname: string): Promise<StaticFile | null> {
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      throw new HttpError(400, 'bad_request', 'The request path is not valid percent-encoding');
    }
    if (decoded.includes('\0')) throw new HttpError(400, 'bad_request', 'Invalid request path');
    // Dotfiles (.env, .git) are never served, even if one ended up in dist/.
    if (decoded.split('/').some((segment) => segment.startsWith('.'))) return null;
    const path = normalize(join(root, decoded));
    if (!path.startsWith(root)) return null;
    try {
      const info = await stat(path);
      return info.isFile() ? { path, size: info.size, mtimeMs: info.mtimeMs } : null;
    } catch {
      return null;
    }
  }

  // Gzipped copies of text files, keyed by path, size and mtime so a rebuild is picked up.
  const gzipped = new Map<string, Buffer>();

  async function gzippedCopy(file: StaticFile): Promise<Buffer> {
    const key = `${file.path}:${file.size}:${file.mtimeMs}`;
    let body = gzipped.get(key);
    if (!body) {
      body = await gzip(await readFile(file.path));
      if (gzipped.size > 500) gzipped.clear();
      gzipped.set(key, body);
    }
    return body;
  }

  async function send(
    req: IncomingMessage,
    res: ServerResponse,
    file: StaticFile,
    cacheControl: string,
  ): Promise<void> {
    const etag = `W/"${file.size.toString(16)}-${Math.floor(file.mtimeMs).toString(16)}"`;
    const type = TYPES[extname(file.path).toLowerCase()] ?? 'application/octet-stream';
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', cacheControl);
    res.setHeader('Content-Type', type);
    const compressible = COMPRESSIBLE.test(type) && file.size > 512 && file.size < 10 * 1024 * 1024;
    if (compressible) res.setHeader('Vary', 'Accept-Encoding');
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304);
      res.end();
      return;
    }
    if (compressible && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      const body = await gzippedCopy(file);
      res.writeHead(200, { 'Content-Encoding': 'gzip', 'Content-Length': body.length });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    res.setHeader('Content-Length', file.size);
    res.writeHead(200);
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const stream = createReadStream(file.path);
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  }

  /** The built index.html (read again after a rebuild). */
  let indexCache: { key: string; html: string } | null = null;
  async function indexHtml(file: StaticFile): Promise<string> {
    const key = `${file.size}:${file.mtimeMs}`;
    if (indexCache?.key !== key) indexCache = { key, html: await readFile(file.path, 'utf8') };
    return indexCache.html;
  }

  /**
   * What goes into a page's `<head>`: the answers its first API requests would get (so the app
   * does not wait for them), and a preload for any it cannot carry; `personal` when the answers
   * depend on who asks (the HTML must not be cached).
   */
  function headFor(req: IncomingMessage, res: ServerResponse): { html: string; personal: boolean } {
    const known = options.firstAnswers?.(req, res) ?? {};
    const carried = Object.fromEntries(
      EVERY_PAGE_ASKS.filter((path) => Object.hasOwn(known, path)).map((path) => [
        path,
        known[path],
      ]),
    );
    const personal = Object.keys(carried).length > 0;
    const html = [
      personal
        ? `<script type="application/json" id="${FIRST_ANSWERS_ID}">${scriptSafeJson(carried)}</script>`
        : '',
      ...EVERY_PAGE_ASKS.filter((path) => !Object.hasOwn(carried, path)).map(
        (h) => `<link rel="preload" href="${h}" as="fetch" crossorigin>`,
      ),
    ].join('');
    return { html, personal };
  }

  return async function serveStatic(
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
  ): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      throw new HttpError(
        405,
        'method_not_allowed',
        `${req.method ?? ''} is not allowed on ${pathname}; use GET, HEAD`,
        {
          Allow: 'GET, HEAD',
        },
      );
    }
    if (pathname !== '/' && pathname !== '/index.html') {
      const file = await fileAt(pathname);
      if (file) {
        await send(req, res, file, pathname.startsWith('/assets/') ? IMMUTABLE : REVALIDATE);
        return;
      }
      // A missing file (anything with an extension, or under /assets/) is a real 404: answering
      // index.html would hand the browser HTML where it expects a script.
      const last = pathname.slice(pathname.lastIndexOf('/') + 1);
      if (pathname.startsWith('/assets/') || last.includes('.')) {
        throw new HttpError(404, 'not_found', `No file at ${pathname}`);
      }
    }
    const index = await fileAt('/index.html');
    if (!index) {
      res.writeHead(503, {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
        'Retry-After': '30',
      });
      res.end(req.method === 'HEAD' ? undefined : NOT_BUILT_PAGE);
      return;
    }
    const built = await indexHtml(index);
    if (!built.includes('</head>')) {
      await send(req, res, index, REVALIDATE);
      return;
    }
    const head = headFor(req, res);
    // The page's first answers are in its HTML: the app asks nothing it has.
    const html = built.replace('</head>', `${head.html}</head>`);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    if (head.personal) {
      // Who is signed in is in it: never kept by a cache, never answered as "not modified".
      res.setHeader('Cache-Control', 'no-store');
    } else {
      const etag = `"${createHash('sha1').update(html).digest('base64url')}"`;
      res.setHeader('ETag', etag);
      res.setHeader('Cache-Control', REVALIDATE);
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304);
        res.end();
        return;
      }
    }
    res.writeHead(200, { 'Content-Length': Buffer.byteLength(html) });
    res.end(req.method === 'HEAD' ? undefined : html);
  };
}
