/**
 * One Twilsock v3 connection: init/update authentication, tunnelled REST (`message` → `reply`), notifications,
 * token expiry (`client_update` three minutes before, `close` 410 at expiry), flood control. A bad frame gets a
 * well-formed reply when its id can be read; the connection stays open unless the peer keeps flooding.
 */
import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';
import { errors, reasonPhrase, type ObjectKind, type SyncRestError } from './errors';
import type { Fanout, Subscriber, SyncEvent } from './events';
import { decodeFrame, encodeFrame, type TwilsockHeader } from './framing';
import { limits } from './limits';
import { TokenBucket } from './rate';
import { parseRequest } from './request';
import { handle } from './rest/router';
import type { RestRequest, RestResponse } from './rest/context';
import type { Core } from './core';
import { verifyWithKeys, type SigningKey, type TokenCheck } from './token';

const idPrefix = 'TM' + randomBytes(2).toString('hex');
let idCounter = 0;
/**
 * Server message ids: unique per boot without a random draw per notification, and short, because the SDK
 * decodes each notification's id and encodes it again in its ack at about 0.2 µs per byte.
 */
const serverId = (): string => idPrefix + (++idCounter).toString(36);
const ABOUT_TO_EXPIRE_MS = 3 * 60 * 1000;
const safeHost = /^[A-Za-z0-9.\-[\]:]{1,255}$/;

export class Connection implements Subscriber {
  identity: string | null = null;
  /** This client's endpoint, as Sync webhooks name it (`EndpointId`: Twilio's gateways assign one). */
  readonly endpointId = randomBytes(16).toString('hex');
  /** The app session the current token belongs to (claim `sbs`). */
  open = true;
  /** When the current token expires (epoch ms); from then on nothing is accepted. */
  private expiresAt = Infinity;
  /** Access was withdrawn (sign-out, removal): every later frame is refused until the socket is gone. */
  readonly subscriptions = new Map<string, string>();
  private readonly bucket: TokenBucket;
  /** Unreadable frames seen; only the first few are logged. */
  private unreadable = 0;
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly ws: WebSocket,
    private readonly host: ConnectionHost,
    /** `http://<Host header>`: base of URLs in notifications. */
    private readonly base: string,
  ) {
    this.bucket = new TokenBucket(host.rate.perSecond, host.rate.burst);
    ws.on('message', (data, isBinary) => this.onMessage(toBuffer(data), isBinary));
    ws.on('close', () => this.onClose());
    ws.on('error', (e) => this.host.log('websocket error', e));
    // A socket that never authenticates holds no identity slot, so it gets a deadline instead.
    this.timers.push(
      setTimeout(() => {
        if (this.identity === null) this.ws.close(1008, 'init timeout');
      }, limits.initTimeoutMs),
    );
  }

  send(header: Record<string, unknown>, payload?: object | Buffer): void {
    if (this.writable()) this.ws.send(encodeFrame(header, payload), { binary: true });
  }

  private writable(): boolean {
    if (!this.open || this.ws.readyState !== this.ws.OPEN) return false;
    if (this.ws.bufferedAmount > limits.maxBufferedBytes) {
      // A peer that stopped reading: drop it rather than buffer without bound. It reconnects and replays.
      this.host.log(
        `dropping a connection that stopped reading (${this.identity ?? 'not initialised'})`,
      );
      this.ws.terminate();
      return false;
    }
    return true;
  }

  /** Read rights asked of the ACL, by object SID, at the access version they were asked at. */
  private readonly reads = new Map<
    string,
    { version: number; ok: boolean; kind: ObjectKind; name: string | null }
  >();

  /**
   * Whether this connection's identity may read the object now: an event of an object it has lost
   * the right to read (removed from the team, a permission taken away) is not sent, though its
   * subscription stands.
   */
  hears(objectSid: string): boolean {
    if (this.identity === null) return false;
    const version = this.host.accessVersion();
    const known = this.reads.get(objectSid);
    if (known?.version === version) return known.ok;
    // The object as last known: one removed since (its removal event) is judged by its name then.
    const row = this.host.core.store.q.objectBySid.get(objectSid);
    const object = row ? { kind: row.kind, name: row.unique_name } : known;
    if (!object) return true;
    const ok = this.host.mayRead(this.identity, object.kind, object.name) === null;
    if (this.reads.size > 1000) this.reads.clear();
    this.reads.set(objectSid, { version, ok, ...object });
    return ok;
  }

  notify(
    payload: { event_type: string } & Record<string, unknown>,
    shared?: Map<string, Buffer>,
  ): void {
    let body = shared?.get(this.base);
    if (!body) {
      const event = payload.event as Record<string, unknown> | undefined;
      if (event) payload = { ...payload, event: this.withBase(event) };
      body = Buffer.from(JSON.stringify(payload));
      shared?.set(this.base, body);
    }
    if (this.writable())
      this.ws.send(encodeFrame(notificationHeader(), body, false), { binary: true });
  }

  /**
   * One notification for a run of same-type events: `event` for one, `events: [...]` for several (both are what
   * the SDK accepts for every event type). The SDK decodes every byte with a slow pure-JS UTF-8 decoder and
   * acks every frame, so one frame per run instead of per event roughly halves a subscriber's CPU per event.
   * Connections on the same URL base receiving the same run share the encoded frame, id included (ids only
   * need to be unique per connection).
   */
  notifyMany(eventType: string, events: SyncEvent[], fanout: Fanout): void {
    if (!this.writable()) return;
    let key = this.base;
    for (const e of events) key += ' ' + fanout.seq(e);
    let frame = fanout.frames.get(key);
    if (!frame) {
      const encode = (e: SyncEvent): string => JSON.stringify(this.withBase(e.event));
      const head = `{"event_type":${JSON.stringify(eventType)},"event_protocol_version":4,`;
      const body =
        events.length === 1
          ? `${head}"event":${fanout.eventJson(events[0]!, this.base, encode)}}`
          : `${head}"events":[${events.map((e) => fanout.eventJson(e, this.base, encode)).join(',')}]}`;
      frame = encodeFrame(notificationHeader(), Buffer.from(body), false);
      fanout.frames.set(key, frame);
    }
    this.ws.send(frame, { binary: true });
  }

  /** Item URLs in events are stored relative; each connection sees them on the host it connected to. */
  private withBase(event: Record<string, unknown>): Record<string, unknown> {
    return typeof event.item_url === 'string' && event.item_url.startsWith('/')
      ? { ...event, item_url: this.base + event.item_url }
      : event;
  }

  /** Closes the socket without a Twilsock `close` (as a network failure would). */
  drop(): void {
    this.ws.terminate();
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    let id: string | undefined;
    try {
      if (!this.allow()) {
        this.refuse(data, errors.tooManyRequests(), 'TOO_MANY_REQUESTS');
        return;
      }
      if (data.length > limits.maxFrameBytes) {
        this.refuse(data, errors.frameTooLarge(limits.maxFrameBytes), 'PAYLOAD_TOO_LARGE');
        return;
      }
      const decoded = decodeFrame(data);
      if (!decoded.ok) {
        if (decoded.id !== undefined && decoded.method !== 'reply') {
          this.replyStatus(decoded.id, 400, 'BAD_REQUEST', decoded.reason);
        } else {
          if (++this.unreadable <= 5) {
            this.host.log(
              `ignored an unreadable ${isBinary ? 'binary' : 'text'} frame: ${decoded.reason}`,
            );
          }
        }
        return;
      }
      const { header } = decoded.frame;
      if (typeof header.id === 'string' && header.method !== 'reply') id = header.id;
      this.dispatch(header, decoded.frame.payload);
    } catch (e) {
      this.host.log('unexpected error handling a frame', e);
      // Still answer: the client would otherwise wait 30 s for a reply that never comes.
      if (id !== undefined) this.replyStatus(id, 500, 'INTERNAL_SERVER_ERROR', 'internal error');
    }
  }

  /** Answers a frame we will not process, if its header names an id: a `message` gets an HTTP error. */
  private refuse(data: Buffer, error: SyncRestError, status: string): void {
    const head = decodeFrame(data.subarray(0, 4096));
    const id = head.ok ? head.frame.header.id : head.id;
    const method = head.ok ? head.frame.header.method : head.method;
    if (typeof id !== 'string' || method === 'reply') return;
    if (method === 'message') this.replyHttp(id, error.status, error.body());
    else this.replyStatus(id, error.status, status, error.message);
  }

  private dispatch(header: TwilsockHeader, payload: Buffer): void {
    const id = typeof header.id === 'string' ? header.id : undefined;
    switch (header.method) {
      case 'reply':
      case 'telemetry.v1':
        return;
      case 'close':
        this.ws.close(1000);
        return;
      case 'init':
        if (id !== undefined) this.onInit(id, header);
        return;
      case 'update':
        if (id !== undefined) this.onUpdate(id, header);
        return;
      case 'ping':
        if (id !== undefined) this.replyStatus(id, 200, 'OK');
        return;
      case 'message':
        if (id === undefined) return;
        if (this.identity === null) this.replyStatus(id, 401, 'UNAUTHORIZED', 'init first');
        else if (this.host.core.now() >= this.expiresAt)
          this.refuseUnauthorized(id, 20104, 'Access Token expired');
        else this.onRequest(id, header, payload);
        return;
      default:
        if (id !== undefined)
          this.replyStatus(
            id,
            400,
            'BAD_REQUEST',
            `unknown method ${JSON.stringify(header.method)}`,
          );
    }
  }

  private onInit(id: string, header: TwilsockHeader): void {
    const check = this.verify(header.token);
    const sameIdentity = !check.ok || this.identity === null || check.identity === this.identity;
    if (!check.ok || !sameIdentity) {
      this.send({
        method: 'reply',
        id,
        status: {
          code: 401,
          status: 'UNAUTHORIZED',
          errorCode: check.ok ? 20106 : check.errorCode,
          description: check.ok ? 'This connection belongs to another identity' : check.description,
        },
      });
      this.closeSoon();
      return;
    }
    if (this.identity === null) {
      if (!this.host.register(this, check.identity)) {
        const description = `Too many connections for identity '${check.identity}' (limit ${limits.maxConnectionsPerIdentity})`;
        this.send(
          { method: 'reply', id, status: { code: 429, status: 'TOO_MANY_REQUESTS', description } },
          { backoff_policy: { reconnect_min_ms: 10_000 } },
        );
        this.closeSoon();
        return;
      }
      this.identity = check.identity;
    }
    this.armExpiry(check.exp);
    const continuationMissing = typeof header.continuation_token !== 'string';
    this.send({
      method: 'reply',
      id,
      status: { code: 200, status: 'OK' },
      capabilities: ['client_update', 'offline_storage'],
      continuation_token: 'CT' + randomBytes(16).toString('hex'),
      continuation_token_status: continuationMissing
        ? {
            reissued: true,
            reissue_reason: 'MISSING',
            reissue_message: 'Continuation token is not provided',
          }
        : { reissued: false },
      // Node has no sessionStorage: given a storage id, twilio-sync there throws and catches two TypeErrors per
      // received event (storage.update on every item event). Without one it skips its session cache, as it would.
      ...(inNode(header)
        ? {}
        : { offline_storage: { data_sync: { storage_id: this.host.storageId } } }),
      init_registrations: [
        {
          notification_ctx_id: randomBytes(16).toString('hex'),
          type: 'ers',
          product: 'data_sync',
          message_types: [
            'twilio.sync.event',
            'com.twilio.rtd.cds.document',
            'com.twilio.rtd.cds.list',
            'com.twilio.rtd.cds.map',
          ],
        },
      ],
    });
  }

  private onUpdate(id: string, header: TwilsockHeader): void {
    const check = this.verify(header.token);
    if (!check.ok || (this.identity !== null && check.identity !== this.identity)) {
      const description = check.ok ? 'Updated token is for another identity' : check.description;
      const errorCode = check.ok ? 20106 : check.errorCode;
      this.send({
        method: 'reply',
        id,
        status: { code: 401, status: 'UNAUTHORIZED', errorCode, description },
      });
      return;
    }
    this.armExpiry(check.exp);
    this.replyStatus(id, 200, 'OK');
  }

  /** Signature, time window and grant, as Twilio checks them (token.ts). */
  private verify(token: unknown): TokenCheck {
    return verifyWithKeys(this.host.keys, token, Math.floor(this.host.core.now() / 1000));
  }

  private armExpiry(expSeconds: number): void {
    this.clearTimers();
    this.expiresAt = expSeconds * 1000;
    const left = expSeconds * 1000 - this.host.core.now();
    const warnIn = Math.max(0, left - ABOUT_TO_EXPIRE_MS);
    // setTimeout cannot wait longer than ~24.8 days; tokens never live that long here.
    this.timers.push(
      setTimeout(
        () =>
          this.send({
            method: 'client_update',
            id: serverId(),
            client_update_type: 'token_about_to_expire',
          }),
        Math.min(warnIn, 2 ** 31 - 1),
      ),
      setTimeout(
        () => {
          this.send({
            method: 'close',
            id: serverId(),
            status: { code: 410, status: 'TOKEN_EXPIRED', description: 'Access Token expired' },
          });
          this.closeSoon();
        },
        Math.min(Math.max(0, left), 2 ** 31 - 1),
      ),
    );
  }

  private onRequest(id: string, header: TwilsockHeader, payload: Buffer): void {
    const http = header.http_request;
    if (typeof http !== 'object' || http === null || Array.isArray(http)) {
      const e = errors.invalidParam('http_request', 'must be an object');
      this.replyHttp(id, e.status, e.body());
      return;
    }
    const h = http as Record<string, unknown>;
    const parsed = parseRequest(h, payload);
    if ('error' in parsed) {
      this.replyHttp(id, parsed.error.status, parsed.error.body());
      return;
    }
    const req = parsed.request;
    const host =
      typeof h.host === 'string' && safeHost.test(h.host) ? `http://${h.host}` : this.base;
    const identity = this.identity!;
    const mayRead = (kind: ObjectKind, name: string | null) =>
      this.host.mayRead(identity, kind, name);
    const origin = { via: 'client', identity, endpointId: this.endpointId } as const;
    const run = (): RestResponse => {
      const hook = this.host.testHooks?.(this, req);
      const refused = hook ? null : this.host.authorize(identity, req);
      return (
        hook ??
        (refused ? { status: refused.status, body: refused.body() } : null) ??
        this.host.core.actingAs(origin, () =>
          handle({ core: this.host.core, base: host, identity, conn: this, mayRead }, req, (e) =>
            this.host.log(`${req.method} /${req.segments.join('/')} failed`, e),
          ),
        )
      );
    };
    this.host.submit(run, (res) => {
      this.replyHttp(id, res.status, res.body);
      this.host.onRequest?.(identity, req.method, '/' + req.segments.join('/'), res.status);
    });
  }

  private replyHttp(id: string, code: number, body?: unknown): void {
    this.send(
      {
        method: 'reply',
        id,
        status: { code: 200, status: 'OK' },
        http_status: { code, status: reasonPhrase[code] ?? 'Unknown' },
        http_headers: { 'content-type': 'application/json' },
        payload_type: 'application/json',
      },
      body === undefined ? undefined : (body as object),
    );
  }

  /** A request on a connection whose token no longer holds: 401 with the token error, nothing run. */
  private refuseUnauthorized(id: string, errorCode: number, description: string): void {
    this.send({
      method: 'reply',
      id,
      status: { code: 401, status: 'UNAUTHORIZED', errorCode, description },
    });
  }

  private replyStatus(id: string, code: number, status: string, description?: string): void {
    this.send({
      method: 'reply',
      id,
      status: description === undefined ? { code, status } : { code, status, description },
    });
  }

  /** Beyond the bucket, frames are answered 429; a long flood closes the socket. */
  private allow(): boolean {
    if (this.bucket.take()) return true;
    if (this.bucket.refusedInARow >= limits.maxThrottledInARow) {
      this.host.log(`closing a flooding connection (${this.identity ?? 'not initialised'})`);
      this.ws.close(1008, 'flood');
    }
    return false;
  }

  private closeSoon(): void {
    // Give the client a moment to read the reply; it closes on its own when it does.
    this.timers.push(setTimeout(() => this.ws.close(1000), 1000));
  }

  private clearTimers(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
  }

  private onClose(): void {
    this.open = false;
    this.clearTimers();
    for (const sid of this.subscriptions.keys()) this.host.core.hub.unsubscribe(sid, this);
    this.subscriptions.clear();
    this.host.unregister(this);
  }
}

/** The SDK reports its platform in init `metadata.env` (platform.js: "Node.js" under Node). */
function inNode(header: TwilsockHeader): boolean {
  const metadata = header.metadata;
  return (
    typeof metadata === 'object' &&
    metadata !== null &&
    (metadata as Record<string, unknown>).env === 'Node.js'
  );
}

/**
 * Only what twilsock reads: no `payload_type` (absent means JSON) and no `notification_ctx_id` (unused by the SDK
 * for notifications), 58 bytes the SDK would otherwise decode, at about 0.2 µs per byte, for every frame.
 */
function notificationHeader(): Record<string, unknown> {
  return { method: 'notification', id: serverId(), message_type: 'twilio.sync.event' };
}

function toBuffer(data: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** What a Twilsock connection needs from the service that holds it (service.ts provides it). */
export interface ConnectionHost {
  core: Core;
  /** The API keys whose tokens the service takes, by SID (the issuer a token names). */
  keys: ReadonlyMap<string, SigningKey>;
  storageId: string;
  /** Per-connection token bucket for inbound frames. */
  rate: { perSecond: number; burst: number };
  /** Returns false when the identity already has the maximum number of connections. */
  register(conn: Connection, identity: string): boolean;
  unregister(conn: Connection): void;
  log(message: string, error?: unknown): void;
  /**
   * Runs a request, possibly batched with others into one transaction (group commit); `done` is called
   * after the commit, in submission order.
   */
  submit(run: () => RestResponse, done: (res: RestResponse) => void): void;
  /** Called after every tunnelled request (request log, tests). */
  onRequest?:
    ((identity: string, method: string, path: string, status: number) => void) | undefined;
  testHooks?:
    | ((conn: Connection, req: RestRequest) => { status: number; body?: unknown } | undefined)
    | undefined;
  /** Refuses a client's request before any handler runs (the service's ACL, policy.ts). */
  authorize(identity: string, req: RestRequest): SyncRestError | null;
  /** Whether an identity may read (subscribe to, hear of) an object (the service's ACL). */
  mayRead(identity: string, kind: ObjectKind, name: string | null): SyncRestError | null;
  /** Changes whenever who may do what changes (a permission, the ACL itself). */
  accessVersion(): number;
}
