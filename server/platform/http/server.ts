/**
 * The HTTP(S) server every request passes through: security headers on every answer, the Host check
 * (DNS rebinding) before anything else, /api to the router (same-origin writes, JSON errors), every
 * other path to the static handler, and WebSocket upgrades to whichever service takes their path.
 * A refusal thrown anywhere below is answered here (toHttpError); anything else is logged and
 * answered 500.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import type { ServerConfig } from '../config';
import { answerClientError, HttpError, sendError, toHttpError } from './errors';
import { applyHeaders } from './headers';
import { createHostPolicy, hostname, type HostPolicy } from './hosts';
import { checkSameOrigin, isStateChanging, requestOrigin } from './origin';
import type { RequestContext, Router } from './router';

/** Where the JSON API is mounted; every path under it is the router's. */
const API_MOUNT = '/api';

export interface HttpServerOptions {
  config: ServerConfig;
  /** Sent on every answer (securityHeaders). */
  headers: Readonly<Record<string, string>>;
  router: Router;
  /** Everything outside /api (the built app). */
  serveStatic: (req: IncomingMessage, res: ServerResponse, pathname: string) => Promise<void>;
  /**
   * Offered every request outside /api before the static handler, after the Host check: true when
   * it took the request (a service answering its own protocol, such as a twin's REST API).
   */
  handleRaw?: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** Offers an upgrade to the WebSocket services; false when none takes its path. */
  upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean;
  now: () => number;
  log: (message: string) => void;
}

export function createHttpServer(options: HttpServerOptions): Server {
  const { config, router, now, log } = options;
  const hosts = createHostPolicy({ listenHost: config.host, publicHosts: config.publicHosts });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    applyHeaders(res, options.headers);
    checkHost(req, hosts, config.trustProxy);
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      throw new HttpError(400, 'bad_request', 'The request URL is malformed');
    }
    const pathname = url.pathname;
    if (pathname === API_MOUNT || pathname.startsWith(`${API_MOUNT}/`)) {
      const origin = requestOrigin(req, config.trustProxy);
      const match = router.match(req.method ?? 'GET', pathname);
      if (isStateChanging(req.method)) checkSameOrigin(req, origin);
      const ctx: RequestContext = { req, res, url, params: match.params, now: now(), origin };
      await match.handler(ctx);
      return;
    }
    if (options.handleRaw?.(req, res)) return;
    await options.serveStatic(req, res, pathname);
  }

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) {
        log(`request ${req.method ?? ''} ${req.url ?? ''} failed after answering: ${String(err)}`);
        res.destroy();
        return;
      }
      const refusal = toHttpError(err);
      if (refusal) {
        sendError(res, refusal);
        return;
      }
      log(
        `request ${req.method ?? ''} ${req.url ?? ''} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
      );
      sendError(res, new HttpError(500, 'internal_error', 'Something went wrong on the server'));
    });
  };
  const server: Server = config.tls
    ? createTlsServer(
        { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) },
        onRequest,
      )
    : createServer(onRequest);
  // A slow or stuck client cannot hold a request slot for long (uploads included); WebSocket
  // connections are unaffected once upgraded.
  server.requestTimeout = 120_000;
  server.headersTimeout = 20_000;
  server.on('clientError', answerClientError);
  // Every WebSocket upgrade passes the Host check before any service sees it.
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    try {
      checkHost(req, hosts, config.trustProxy);
    } catch (err) {
      refuseUpgrade(
        socket,
        err instanceof HttpError ? err : new HttpError(400, 'bad_request', 'Bad request'),
      );
      return;
    }
    if (!options.upgrade(req, socket, head)) {
      refuseUpgrade(socket, new HttpError(404, 'not_found', 'No WebSocket endpoint at this path'));
    }
  });
  return server;
}

/**
 * Refuses a request addressed to a name this server was not told it has (DNS rebinding), before anything
 * else runs. Behind a trusted proxy the forwarded host must pass too, since it decides the page origin.
 */
function checkHost(req: IncomingMessage, hosts: HostPolicy, trustProxy: boolean): void {
  const names = [req.headers.host ?? ''];
  const forwarded = trustProxy ? req.headers['x-forwarded-host'] : undefined;
  if (forwarded !== undefined) names.push(...(Array.isArray(forwarded) ? forwarded : [forwarded]));
  for (const name of names) {
    const host = name.split(',')[0]!.trim();
    if (hostname(host) === null) {
      throw new HttpError(400, 'bad_request', 'The Host header is missing or malformed');
    }
    if (!hosts.allows(host)) {
      throw new HttpError(
        421,
        'host_not_allowed',
        `This server does not answer to the name ${JSON.stringify(host.slice(0, 100))}; an operator can add it to PUBLIC_ORIGIN`,
      );
    }
  }
}

function refuseUpgrade(socket: Duplex, err: HttpError): void {
  const body = JSON.stringify({ error: { code: err.code, message: err.message } });
  const reason =
    err.status === 421 ? 'Misdirected Request' : err.status === 404 ? 'Not Found' : 'Bad Request';
  socket.on('error', () => undefined);
  socket.end(
    `HTTP/1.1 ${err.status} ${reason}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
