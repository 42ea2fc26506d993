/**
 * A minimal Twilsock client for the Sync benchmark's lightweight phase: the same frames the SDK sends (init,
 * tunnelled REST, subscription establish, an ack per notification) without the SDK's own per-event CPU cost, so
 * that phase measures the service rather than its clients.
 */
import WebSocket from 'ws';
import { decodeFrame, encodeFrame, parseJsonPayload } from '../../server/twins/sync/framing';

export interface RawReply {
  code: number;
  body: unknown;
}

export class RawClient {
  private seq = 0;
  private readonly pending = new Map<string, (r: RawReply) => void>();
  onEvent: (eventType: string, event: Record<string, unknown>) => void = () => undefined;

  private constructor(
    private readonly ws: WebSocket,
    private readonly prefix: string,
  ) {
    ws.on('message', (data: Buffer) => this.onFrame(data));
  }

  static async connect(uri: string, token: string, prefix: string): Promise<RawClient> {
    const ws = new WebSocket(uri, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const c = new RawClient(ws, prefix);
    const init = await c.send({ method: 'init', token, continuation_token: null });
    if (init.code !== 200) throw new Error(`init refused: ${init.code}`);
    return c;
  }

  /** A tunnelled REST call; resolves with the HTTP status and body. */
  request(method: string, path: string, body?: object): Promise<RawReply> {
    return this.send(
      {
        method: 'message',
        active_grant: 'data_sync',
        payload_type: 'application/json',
        http_request: {
          host: '127.0.0.1',
          path,
          method,
          params: {},
          headers: { 'Content-Type': 'application/json' },
        },
      },
      body,
    );
  }

  /** Subscribes to a map from its current event id, as the SDK does after opening it. */
  async subscribeMap(name: string): Promise<string> {
    const map = await this.request('GET', `/v3/Maps/${encodeURIComponent(name)}`);
    const { sid, last_event_id } = map.body as { sid: string; last_event_id: number };
    await this.request('POST', '/v4/Subscriptions', {
      event_protocol_version: 4,
      action: 'establish',
      correlation_id: Date.now(),
      retried_requests: 0,
      ttl_in_s: -1,
      requests: [{ object_sid: sid, object_type: 'map', last_event_id }],
    });
    return sid;
  }

  close(): void {
    this.ws.close();
  }

  private send(header: Record<string, unknown>, body?: object): Promise<RawReply> {
    const id = `${this.prefix}${++this.seq}`;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(encodeFrame({ ...header, id }, body), { binary: true });
    });
  }

  private onFrame(data: Buffer): void {
    const d = decodeFrame(data);
    if (!d.ok) return;
    const h = d.frame.header;
    const id = String(h.id);
    let body: unknown;
    try {
      body = parseJsonPayload(d.frame.payload);
    } catch {
      body = undefined;
    }
    if (h.method === 'reply') {
      const http = h.http_status as { code: number } | undefined;
      const status = h.status as { code: number } | undefined;
      this.pending.get(id)?.({ code: http?.code ?? status?.code ?? 0, body });
      this.pending.delete(id);
      return;
    }
    // The SDK acks every server message that is not a reply; so does this client.
    this.ws.send(encodeFrame({ method: 'reply', id, status: { code: 200, status: 'OK' } }), {
      binary: true,
    });
    const n = body as
      { event_type?: unknown; event?: Record<string, unknown>; events?: unknown } | undefined;
    if (h.method !== 'notification' || typeof n?.event_type !== 'string') return;
    // Like the SDK: `events` (a run of one type in one frame) or a single `event`.
    const events = Array.isArray(n.events) ? (n.events as Array<Record<string, unknown>>) : [];
    if (n.event) events.push(n.event);
    for (const e of events) this.onEvent(n.event_type, e);
  }
}
