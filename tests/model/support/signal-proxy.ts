/**
 * A TCP proxy in front of the real server, standing for one person's network: pages load the app
 * through it, so the test can fail that person's voice signalling the way a network fails it
 * without touching the app or the server. Only connections that open the Voice SDK's signalling
 * socket (`GET /signal`) are ever held or cut; everything else (the app, /api, Sync) just passes.
 *
 * - `drop()` cuts the open signalling sockets (both ends see the TCP connection end without a
 *   WebSocket close: 1006 in the page, an abnormal close at the server), and with `refuse` keeps
 *   cutting new ones until `restore()`.
 * - `hold(direction)` keeps the bytes going `up` (page to server) or `down` (server to page) of
 *   the signalling sockets, as a stalled link does, until `release(direction)` lets them through
 *   in order (the server's answer to the upgrade always passes, so the socket opens). With `{ existing: true }` only the sockets open now stall (a tab opened later gets
 *   through); `dropHeld()` then cuts just those.
 * - `goAway()` closes the signalling sockets cleanly, as a load balancer going down does: the page
 *   gets a WebSocket close frame (1001) between two frames, the server a closed connection.
 * - `sever()` closes the server's end only and keeps the page's end open and silent, as a NAT that
 *   forgot the connection does: the server drops the registration, the page notices nothing until
 *   its heartbeat times out (15 s).
 * - `inject(text)` sends the page a text frame as if from the server, between two frames.
 */
import { createServer, Socket, type AddressInfo } from 'node:net';

export type Direction = 'up' | 'down';

export interface SignalProxy {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  drop(options?: { refuse?: boolean }): void;
  restore(): void;
  hold(direction: Direction): void;
  release(direction: Direction): void;
  hold(direction: Direction, options: { existing: true }): void;
  dropHeld(): void;
  goAway(): void;
  sever(): void;
  inject(text: string): void;
  /** Bytes held so far in one direction (since its hold began). */
  heldBytes(direction: Direction): number;
  /** Signalling sockets open through the proxy now. */
  openSignals(): number;
  /** Resolves when the server next sends the page anything (a heartbeat, say), as it passes. */
  nextDown(): Promise<void>;
  close(): Promise<void>;
}

interface Pipe {
  client: Socket;
  upstream: Socket;
  /** Where the server-to-page bytes stand: in the HTTP upgrade answer, or between frames. */
  down: FrameReader;
  /** Frames waiting for the page's stream to reach a frame boundary. */
  toInject: Buffer[];
  /** The server's end is gone; the page's end is kept open and silent. */
  severed: boolean;
}

interface FrameReader {
  /** Still reading the 101 answer's headers. */
  http: boolean;
  /** Bytes of an unfinished header (or of the HTTP answer). */
  head: Buffer;
  /** Payload bytes of the current frame still to come. */
  left: number;
}

/** Follows the server's frames (unmasked, RFC 6455) so a frame can be put between two of them. */
function advance(reader: FrameReader, chunk: Buffer): void {
  let buf = chunk;
  while (buf.length > 0) {
    if (reader.left > 0) {
      const take = Math.min(reader.left, buf.length);
      reader.left -= take;
      buf = buf.subarray(take);
      continue;
    }
    const h = Buffer.concat([reader.head, buf]);
    buf = Buffer.alloc(0);
    reader.head = h;
    if (reader.http) {
      const end = h.indexOf('\r\n\r\n');
      if (end < 0) break;
      reader.http = false;
      reader.head = Buffer.alloc(0);
      buf = h.subarray(end + 4);
      continue;
    }
    if (h.length < 2) break;
    const len7 = h[1]! & 0x7f;
    const headerLength = 2 + (len7 === 126 ? 2 : len7 === 127 ? 8 : 0) + (h[1]! & 0x80 ? 4 : 0);
    if (h.length < headerLength) break;
    reader.left =
      len7 === 126 ? h.readUInt16BE(2) : len7 === 127 ? Number(h.readBigUInt64BE(2)) : len7;
    reader.head = Buffer.alloc(0);
    buf = h.subarray(headerLength);
  }
}

const atBoundary = (reader: FrameReader) =>
  !reader.http && reader.left === 0 && reader.head.length === 0;

/** A server-to-page frame (unmasked): `opcode` 1 text, 8 close. */
function frame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const header =
    length < 126
      ? Buffer.from([0x80 | opcode, length])
      : Buffer.from([0x80 | opcode, 126, length >> 8, length & 0xff]);
  return Buffer.concat([header, payload]);
}

export async function startSignalProxy(targetPort: number): Promise<SignalProxy> {
  const signals = new Set<Pipe>();
  const all = new Set<Socket>();
  let refusing = false;
  const holding: Record<Direction, boolean> = { up: false, down: false };
  const held: Record<Direction, Array<{ pipe: Pipe; data: Buffer }>> = { up: [], down: [] };
  const heldCount: Record<Direction, number> = { up: 0, down: 0 };
  let downWaiters: Array<() => void> = [];

  const track = (socket: Socket) => {
    all.add(socket);
    socket.on('close', () => all.delete(socket));
    socket.on('error', () => socket.destroy());
  };

  /** Pipes held by `hold(direction, { existing: true })`; null when a hold takes them all. */
  const heldPipes: Record<Direction, Set<Pipe> | null> = { up: null, down: null };

  const flushInjected = (pipe: Pipe) => {
    if (!atBoundary(pipe.down) || pipe.client.destroyed) return;
    for (const data of pipe.toInject.splice(0)) pipe.client.write(data);
  };

  const send = (pipe: Pipe, direction: Direction, data: Buffer) => {
    if (pipe.severed) return;
    const to = direction === 'up' ? pipe.upstream : pipe.client;
    if (to.destroyed) return;
    to.write(data);
    if (direction === 'down') {
      advance(pipe.down, data);
      flushInjected(pipe);
      const waiting = downWaiters;
      downWaiters = [];
      for (const resolve of waiting) resolve();
    }
  };

  // The server's answer to the upgrade always passes: a stalled link here is one whose socket is open.
  const isHeld = (pipe: Pipe, direction: Direction) =>
    holding[direction] &&
    (heldPipes[direction]?.has(pipe) ?? true) &&
    !(direction === 'down' && pipe.down.http);

  /** Sends the page a frame between two of the server's (at once, or after the current frame). */
  const injectFrame = (pipe: Pipe, data: Buffer) => {
    pipe.toInject.push(data);
    flushInjected(pipe);
  };

  const server = createServer((client) => {
    track(client);
    client.once('data', (first: Buffer) => {
      const isSignal = first.subarray(0, 16).toString('latin1').startsWith('GET /signal');
      if (isSignal && refusing) {
        client.resetAndDestroy();
        return;
      }
      const upstream = new Socket();
      track(upstream);
      upstream.connect(targetPort, '127.0.0.1');
      const pipe: Pipe = {
        client,
        upstream,
        down: { http: true, head: Buffer.alloc(0), left: 0 },
        toInject: [],
        severed: false,
      };
      if (!isSignal) {
        upstream.write(first);
        client.pipe(upstream);
        upstream.pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
        return;
      }
      signals.add(pipe);
      const forward = (direction: Direction) => (data: Buffer) => {
        if (isHeld(pipe, direction)) {
          held[direction].push({ pipe, data });
          heldCount[direction] += data.length;
        } else send(pipe, direction, data);
      };
      forward('up')(first);
      client.on('data', forward('up'));
      upstream.on('data', forward('down'));
      const end = () => {
        signals.delete(pipe);
        client.destroy();
        upstream.destroy();
      };
      client.on('close', end);
      upstream.on('close', () => {
        if (!pipe.severed) end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    drop(options = {}) {
      refusing = options.refuse ?? false;
      for (const pipe of [...signals]) {
        signals.delete(pipe);
        pipe.client.resetAndDestroy();
        pipe.upstream.resetAndDestroy();
      }
    },
    restore() {
      refusing = false;
    },
    hold(direction: Direction, options?: { existing: true }) {
      holding[direction] = true;
      heldPipes[direction] = options?.existing ? new Set(signals) : null;
      heldCount[direction] = 0;
    },
    release(direction) {
      holding[direction] = false;
      heldPipes[direction] = null;
      for (const { pipe, data } of held[direction].splice(0)) send(pipe, direction, data);
    },
    dropHeld() {
      const cut = new Set([...(heldPipes.up ?? []), ...(heldPipes.down ?? [])]);
      for (const pipe of cut) {
        signals.delete(pipe);
        pipe.client.resetAndDestroy();
        pipe.upstream.resetAndDestroy();
      }
    },
    goAway() {
      const goingAway = Buffer.from([0x03, 0xe9]); // 1001
      for (const pipe of [...signals]) {
        signals.delete(pipe);
        const boundary = atBoundary(pipe.down);
        pipe.severed = true; // the page's end is closed here, not by the upstream's close
        pipe.upstream.destroy();
        pipe.toInject.push(frame(8, goingAway));
        if (boundary) {
          for (const data of pipe.toInject.splice(0)) pipe.client.write(data);
          pipe.client.end();
        } else {
          pipe.client.destroy(); // mid-frame: a clean close cannot be sent
        }
      }
    },
    sever() {
      for (const pipe of [...signals]) {
        signals.delete(pipe);
        pipe.severed = true;
        pipe.upstream.destroy();
      }
    },
    inject(text) {
      for (const pipe of signals) injectFrame(pipe, frame(1, Buffer.from(text)));
    },
    heldBytes: (direction) => heldCount[direction],
    openSignals: () => signals.size,
    nextDown: () => new Promise<void>((resolve) => downWaiters.push(resolve)),
    async close() {
      for (const socket of all) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
