/**
 * A raw Twilsock connection for the fuzz test. Unlike the SDK it sends anything, and it checks every frame the
 * server sends back: binary, a readable Twilsock v3 frame, a JSON payload, a reply id that was really sent, no 5xx,
 * and error replies in Twilio's shape. Problems are collected (never thrown from a socket callback).
 */
import WebSocket from 'ws';
import { decodeFrame, encodeFrame, parseJsonPayload } from '../../server/twins/sync/framing';

export interface Reply {
  header: Record<string, unknown>;
  body: unknown;
}

const serverMethods = new Set(['reply', 'notification', 'ping', 'client_update', 'close']);

export class Probe {
  readonly replies = new Map<string, Reply>();
  readonly problems: string[] = [];
  /** Every http_status / twilsock status code seen in replies, counted. */
  readonly statusCounts = new Map<string, number>();
  readonly sentIds = new Set<string>();
  framesReceived = 0;
  closed: { code: number; reason: string } | null = null;
  private readonly ws: WebSocket;
  private seq = 0;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on('message', (data: Buffer, isBinary: boolean) => this.check(data, isBinary));
    ws.on('close', (code, reason) => (this.closed = { code, reason: reason.toString() }));
    ws.on('error', () => undefined);
  }

  static async open(wsUri: string): Promise<Probe> {
    const ws = new WebSocket(wsUri, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new Probe(ws);
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  nextId(): string {
    return `TMfuzz-${++this.seq}`;
  }

  /** Sends raw bytes (binary) or a string (text frame). `id`: a reply is due for this id. */
  sendRaw(data: Buffer | string, id?: string): void {
    if (id !== undefined) this.sentIds.add(id);
    this.ws.send(data, { binary: typeof data !== 'string' });
  }

  /** Sends a well-framed message with a fresh id and returns the id. */
  send(header: Record<string, unknown>, payload?: Buffer | string | object): string {
    const id = this.nextId();
    this.sendRaw(encodeFrame({ ...header, id }, payload), id);
    return id;
  }

  async call(header: Record<string, unknown>, payload?: Buffer | string | object): Promise<Reply> {
    const id = this.send(header, payload);
    await this.waitFor([id]);
    return this.replies.get(id)!;
  }

  /** Resolves once every id has its reply; rejects with the missing ones after `timeoutMs`. */
  async waitFor(ids: string[], timeoutMs = 10_000): Promise<void> {
    const start = Date.now();
    for (;;) {
      const missing = ids.filter((id) => !this.replies.has(id));
      if (missing.length === 0) return;
      if (Date.now() - start > timeoutMs || this.closed) {
        throw new Error(
          `${missing.length} of ${ids.length} requests got no reply` +
            (this.closed ? ` (socket closed ${this.closed.code} ${this.closed.reason})` : '') +
            `, e.g. ${missing.slice(0, 3).join(', ')}`,
        );
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  close(): void {
    this.ws.close();
  }

  terminate(): void {
    this.ws.terminate();
  }

  private count(key: string): void {
    this.statusCounts.set(key, (this.statusCounts.get(key) ?? 0) + 1);
  }

  private problem(text: string, data: Buffer): void {
    this.problems.push(`${text} — frame: ${JSON.stringify(data.subarray(0, 300).toString())}`);
  }

  private check(data: Buffer, isBinary: boolean): void {
    this.framesReceived += 1;
    if (!isBinary) return this.problem('server sent a text frame', data);
    const d = decodeFrame(data);
    if (!d.ok) return this.problem(`server sent an unreadable frame (${d.reason})`, data);
    const { header, payload } = d.frame;
    let body: unknown;
    try {
      body = parseJsonPayload(payload);
    } catch {
      return this.problem('server payload is not JSON', data);
    }
    if (typeof header.method !== 'string' || !serverMethods.has(header.method))
      return this.problem(`server sent method ${JSON.stringify(header.method)}`, data);
    if (typeof header.id !== 'string' || header.id === '')
      return this.problem('server frame without an id', data);
    if (
      header.method === 'notification' &&
      typeof (body as { event_type?: unknown } | undefined)?.event_type !== 'string'
    )
      return this.problem('notification without a string event_type (crashes the SDK)', data);
    if (header.method !== 'reply') return;
    const id = header.id;
    if (!this.sentIds.has(id)) return this.problem(`reply to an id never sent: ${id}`, data);
    if (this.replies.has(id)) return this.problem(`second reply to ${id}`, data);
    this.replies.set(id, { header, body });
    const status = header.status as { code?: unknown; status?: unknown } | undefined;
    if (
      typeof status !== 'object' ||
      status === null ||
      !Number.isInteger(status.code) ||
      typeof status.status !== 'string'
    )
      return this.problem('reply without a {code, status} twilsock status', data);
    const code = status.code as number;
    if (code >= 500) return this.problem(`twilsock status ${code}`, data);
    const http = header.http_status as { code?: unknown; status?: unknown } | undefined;
    if (http === undefined) {
      this.count(`twilsock ${code}`);
      return;
    }
    if (code !== 200) return this.problem('http reply with a non-200 twilsock status', data);
    if (!Number.isInteger(http.code) || typeof http.status !== 'string')
      return this.problem('malformed http_status', data);
    const httpCode = http.code as number;
    this.count(`http ${httpCode}`);
    if (httpCode >= 500) return this.problem(`http status ${httpCode}`, data);
    if (httpCode >= 400) {
      const b = body as { code?: unknown; message?: unknown; status?: unknown } | undefined;
      if (
        typeof b !== 'object' ||
        b === null ||
        !Number.isInteger(b.code) ||
        typeof b.message !== 'string' ||
        b.message === '' ||
        b.status !== httpCode
      )
        return this.problem(
          `error reply ${httpCode} without a Twilio {code, message, status} body`,
          data,
        );
    }
  }
}

/** Counts from several probes merged, for the printed summary. */
export function mergeCounts(probes: Probe[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of probes) for (const [k, v] of p.statusCounts) out[k] = (out[k] ?? 0) + v;
  return out;
}
