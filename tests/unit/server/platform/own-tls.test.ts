/**
 * The twins over this server's own TLS (server/twins/own-tls.ts): the clients that reach "Twilio" on
 * this process trust exactly the certificate this server serves, self-signed and named for another
 * host, and nothing else they were not already trusting.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SwitchboardRequestClient } from '../../../../server/twilio/client';
import { ownTls } from '../../../../server/platform/http/own-tls';
import { removeDir, tempDir } from '../support';

let dir: string;
const servers: Server[] = [];

/** A self-signed certificate for `switchboard.lan` (never the loopback address it is reached at). */
function certificate(name: string): { cert: string; key: string } {
  const cert = join(dir, `${name}.pem`);
  const key = join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2'],
      ...['-subj', '/CN=switchboard.lan', '-addext', 'subjectAltName=DNS:switchboard.lan'],
      ...['-keyout', key, '-out', cert],
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

/** An https server with `files`' certificate answering what it was sent. */
async function serve(files: { cert: string; key: string }): Promise<string> {
  const server = createServer(
    { cert: readFileSync(files.cert), key: readFileSync(files.key) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json', 'x-seen': 'yes' });
        res.end(
          JSON.stringify({
            method: req.method,
            url: req.url,
            type: req.headers['content-type'] ?? null,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      });
    },
  );
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let ours: { cert: string; key: string };
let ownUrl: string;
let strangerUrl: string;

beforeAll(async () => {
  dir = tempDir('sb-own-tls-');
  ours = certificate('ours');
  ownUrl = await serve(ours);
  strangerUrl = await serve(certificate('stranger'));
});

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  removeDir(dir);
});

describe('the twins over this server own TLS', () => {
  it('is what a plain client refuses: a self-signed certificate', async () => {
    await expect(fetch(`${ownUrl}/x`)).rejects.toThrow();
  });

  it("fetches from this server's own certificate, whatever name it is reached by", async () => {
    const own = ownTls(ours.cert);
    const res = await own.fetch(`${ownUrl}/api/twilio/voice?a=1`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'CallSid=CA1&To=Nobody',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-seen')).toBe('yes');
    expect(await res.json()).toEqual({
      method: 'POST',
      url: '/api/twilio/voice?a=1',
      type: 'application/x-www-form-urlencoded',
      body: 'CallSid=CA1&To=Nobody',
    });
  });

  it('refuses any other self-signed certificate', async () => {
    const own = ownTls(ours.cert);
    await expect(own.fetch(`${strangerUrl}/x`)).rejects.toThrow(/self-signed/);
  });

  it('stops at an aborted signal', async () => {
    const own = ownTls(ours.cert);
    await expect(own.fetch(`${ownUrl}/x`, { signal: AbortSignal.abort() })).rejects.toThrow();
  });

  it("gives the app's REST client its agent: the twins' REST API answers over it", async () => {
    const own = ownTls(ours.cert);
    const uri = 'https://sync.twilio.com/v1/Services/IS1';
    const trusting = new SwitchboardRequestClient(ownUrl, undefined, undefined, own.agent);
    const answer = await trusting.request({ method: 'get', uri });
    expect(answer.statusCode).toBe(200);
    expect((answer.body as { url: string }).url).toBe('/sync/v1/Services/IS1');
    const plain = new SwitchboardRequestClient(ownUrl, { retries: 0, baseMs: 1, capMs: 1 });
    await expect(plain.request({ method: 'get', uri })).rejects.toThrow(/self-signed/);
    const stranger = new SwitchboardRequestClient(
      strangerUrl,
      { retries: 0, baseMs: 1, capMs: 1 },
      undefined,
      own.agent,
    );
    await expect(stranger.request({ method: 'get', uri })).rejects.toThrow(/self-signed/);
  });
});
