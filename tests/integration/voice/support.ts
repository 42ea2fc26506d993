/** A raw signalling client for hostile tests: speaks PStream frames over a plain WebSocket. */
import WebSocket from 'ws';
import { signIn } from '../sync/support';

export interface Frame {
  type: string;
  payload: Record<string, unknown>;
}

export class RawSignal {
  readonly frames: Frame[] = [];
  /** Every text frame as received, for well-formedness checks. */
  readonly raw: string[] = [];
  closed = false;
  closeCode = 0;
  private waiters: (() => void)[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const text = (Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer)).toString();
      this.raw.push(text);
      if (text !== '\n') {
        const f = JSON.parse(text) as Frame;
        this.frames.push(f);
      } else ws.send('\n');
      for (const w of this.waiters.splice(0)) w();
    });
    ws.on('close', (code) => {
      this.closed = true;
      this.closeCode = code;
      for (const w of this.waiters.splice(0)) w();
    });
    ws.on('error', () => undefined);
  }

  static async open(baseUrl: string): Promise<RawSignal> {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/signal`);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new RawSignal(ws);
  }

  send(type: string, payload: Record<string, unknown> = {}): void {
    this.ws.send(JSON.stringify({ payload, type, version: '1.6' }));
  }

  sendText(text: string | Buffer): void {
    this.ws.send(text);
  }

  /** Resolves with the first frame (from `from` on) matching `match`. */
  async next(match: (f: Frame) => boolean, from = 0, timeoutMs = 5000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.slice(from).find(match);
      if (found) return found;
      if (this.closed)
        throw new Error(
          `socket closed (${this.closeCode}) before a match; got ${JSON.stringify(this.frames)}`,
        );
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching frame; got ${JSON.stringify(this.frames)}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  async waitClosed(timeoutMs = 5000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error('socket still open');
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.closeCode;
  }

  close(): void {
    this.ws.close();
  }
}

/** A signed-in person's voice token from the server. */
export async function voiceToken(
  baseUrl: string,
  email: string,
): Promise<{ cookie: string; identity: string; token: string }> {
  const cookie = await signIn(baseUrl, email);
  const res = await fetch(`${baseUrl}/api/voice/token`, { headers: { cookie } });
  if (!res.ok) throw new Error(`voice token failed: ${res.status}`);
  const body = (await res.json()) as { identity: string; token: string };
  return { cookie, ...body };
}

/** Each person's presence heartbeat, by server and email: one renewal timer each. */
const heartbeats = new Map<string, ReturnType<typeof setInterval>>();

async function publishPresence(baseUrl: string, cookie: string): Promise<void> {
  const res = await fetch(`${baseUrl}/api/presence`, {
    method: 'PUT',
    headers: { cookie, origin: baseUrl, 'content-type': 'application/json' },
    body: JSON.stringify({ status: 'available' }),
  });
  if (res.status !== 204) throw new Error(`presence refused: ${res.status} ${await res.text()}`);
}

/**
 * Says `email` is available in presence, as their page does once its phone is registered: routing
 * rings the people presence shows (Twilio cannot be asked whether a Voice client is registered).
 * The server writes the item (PUT /api/presence, with `cookie` or a fresh sign-in), and it lives
 * the server's presence ttl: like the page, a heartbeat renews it (POST /api/presence/renew, and
 * writes it again once it lapsed) until the server stops answering or the session ends.
 */
export async function present(baseUrl: string, email: string, cookie?: string): Promise<void> {
  const session = cookie ?? (await signIn(baseUrl, email));
  await publishPresence(baseUrl, session);
  const key = `${baseUrl} ${email}`;
  const running = heartbeats.get(key);
  if (running) clearInterval(running);
  const settings = await fetch(`${baseUrl}/api/presence/settings`, {
    headers: { cookie: session },
  });
  const { heartbeatSeconds } = (await settings.json()) as { heartbeatSeconds: number };
  const stop = (): void => {
    clearInterval(timer);
    if (heartbeats.get(key) === timer) heartbeats.delete(key);
  };
  // A server that stays unreachable this many beats in a row is gone (its suite ended).
  let unreachable = 0;
  const timer = setInterval(() => {
    void (async () => {
      const res = await fetch(`${baseUrl}/api/presence/renew`, {
        method: 'POST',
        headers: { cookie: session, origin: baseUrl },
      });
      unreachable = 0;
      // Lapsed: written again, as the page does. Signed out: the page stops too. Anything else
      // (Sync busy or down) is tried again on the next beat.
      if (res.status === 404) await publishPresence(baseUrl, session);
      else if (res.status === 401 || res.status === 403) stop();
    })().catch(() => {
      if (++unreachable >= 3) stop();
    });
  }, heartbeatSeconds * 1000);
  // The heartbeat never holds the test process open.
  timer.unref();
  heartbeats.set(key, timer);
}

/** A raw client that has sent `listen` with a valid token and registered. */
export async function listening(
  baseUrl: string,
  email: string,
  register = true,
): Promise<RawSignal & { identity: string }> {
  const t = await voiceToken(baseUrl, email);
  const s = await RawSignal.open(baseUrl);
  s.send('listen', { token: t.token, reconnectTimeout: 0 });
  await s.next((f) => f.type === 'connected');
  if (register) {
    s.send('register', { media: { audio: true } });
    await s.next((f) => f.type === 'ready');
    await present(baseUrl, email, t.cookie);
  }
  return Object.assign(s, { identity: t.identity });
}

/** Polls an async check until it holds, or fails naming `what` (each check is awaited). */
export async function eventually(
  check: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
