/**
 * The twins reached over this server's own TLS (TLS_CERT / TLS_KEY). "Twilio" is this process, so
 * with TLS on, the app's REST client, the voice twin's webhooks and `<Play>` fetches, and the
 * recordings the app streams all go to this server's own https origin, which a self-signed
 * certificate (what a team on a LAN uses) would make them refuse ("self-signed certificate").
 *
 * These clients trust this server's own certificate, pinned: a peer is accepted when it presents
 * exactly the certificate this server serves (its SHA-256 fingerprint), whatever name it was
 * reached by (loopback, usually). Every other peer is verified as usual: Node's root certificates
 * and the host name. Nothing here is used against Twilio's own cloud (server/app.ts).
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import tls, { type PeerCertificate } from 'node:tls';

export interface OwnTls {
  /** For the `twilio` package's RequestClient (its axios `httpsAgent`). */
  agent: https.Agent;
  /** `fetch` for the voice twin and the recordings: https through {@link agent}, the rest as usual. */
  fetch: typeof fetch;
}

/** The fingerprint Node gives a peer certificate (`AA:BB:…`), of the first certificate in `pem`. */
export function fingerprintOf(pem: string): string {
  return new X509Certificate(pem).fingerprint256;
}

/**
 * The TLS options that trust `pem` (this server's certificate file, leaf first) by its fingerprint,
 * and anything else as Node would.
 */
export function ownTlsOptions(pem: string): tls.ConnectionOptions {
  const pinned = fingerprintOf(pem);
  return {
    // The chain must end at a root Node trusts or at this server's own certificate...
    ca: [...tls.rootCertificates, pem],
    // ...and name the host, unless it is this server's own certificate.
    checkServerIdentity: (host: string, cert: PeerCertificate) =>
      cert.fingerprint256 === pinned ? undefined : tls.checkServerIdentity(host, cert),
  };
}

export function ownTls(certFile: string): OwnTls {
  const options = ownTlsOptions(readFileSync(certFile, 'utf8'));
  const agent = new https.Agent({ ...options, keepAlive: true });
  return { agent, fetch: agentFetch(agent) };
}

/**
 * The global fetch, with https requests sent through `agent` (Node's fetch takes no agent). What the
 * twins send is small: the body is a string or absent, and the answer is read whole.
 */
export function agentFetch(agent: https.Agent): typeof fetch {
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : input.toString());
    if (url.protocol !== 'https:' || input instanceof Request) return fetch(input, init);
    const body = init.body ?? null;
    if (body !== null && typeof body !== 'string')
      throw new TypeError('this fetch sends a string body or none');
    const headers = new Headers(init.headers);
    if (body !== null) headers.set('content-length', String(Buffer.byteLength(body)));
    return new Promise<Response>((resolve, reject) => {
      const signal = init.signal ?? null;
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const req = https.request(
        url,
        { method: init.method ?? 'GET', agent, headers: Object.fromEntries(headers) },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const status = res.statusCode ?? 502;
            const answer = new Headers();
            for (const [k, v] of Object.entries(res.headers))
              if (v !== undefined) answer.set(k, Array.isArray(v) ? v.join(', ') : v);
            const empty = status === 204 || status === 304 || init.method === 'HEAD';
            resolve(
              new Response(empty ? null : Buffer.concat(chunks), {
                status,
                statusText: res.statusMessage ?? '',
                headers: answer,
              }),
            );
          });
        },
      );
      const abort = () => req.destroy(signal?.reason as Error);
      signal?.addEventListener('abort', abort, { once: true });
      req.on('close', () => signal?.removeEventListener('abort', abort));
      req.on('error', reject);
      req.end(body ?? undefined);
    });
  };
}
