import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { createGzip } from 'node:zlib';

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * A plain gzip static server with history fallback, used to serve the bare baseline page; `headers`
 * are sent on every answer (the app's security headers, to compare pages under the same policy).
 */
export function serveStatic(
  dir: string,
  headers: Readonly<Record<string, string>> = {},
): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    let file = join(dir, path);
    if (!file.startsWith(dir) || !existsSync(file) || statSync(file).isDirectory())
      file = join(dir, 'index.html');
    res.setHeader('content-type', types[extname(file)] ?? 'application/octet-stream');
    if (/\bgzip\b/.test(String(req.headers['accept-encoding']))) {
      res.setHeader('content-encoding', 'gzip');
      createReadStream(file).pipe(createGzip()).pipe(res);
    } else {
      createReadStream(file).pipe(res);
    }
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}
