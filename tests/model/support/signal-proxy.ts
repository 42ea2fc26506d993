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
 *   in order.
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
  /** Bytes held so far in one direction (since its hold began). */
  heldBytes(direction: Direction): number;
  /** Signalling sockets open through the proxy now. */
  openSignals(): number;
  close(): Promise<void>;
}

interface Pipe {
  client: Socket;
  upstream: Socket;
}

export async function startSignalProxy(targetPort: number): Promise<SignalProxy> {
  const signals = new Set<Pipe>();
  const all = new Set<Socket>();
  let refusing = false;
  const holding: Record<Direction, boolean> = { up: false, down: false };
  const held: Record<Direction, Array<{ pipe: Pipe; data: Buffer }>> = { up: [], down: [] };
  const heldCount: Record<Direction, number> = { up: 0, down: 0 };

  const track = (socket: Socket) => {
    all.add(socket);
    socket.on('close', () => all.delete(socket));
    socket.on('error', () => socket.destroy());
  };

  const send = (pipe: Pipe, direction: Direction, data: Buffer) => {
    const to = direction === 'up' ? pipe.upstream : pipe.client;
    if (!to.destroyed) to.write(data);
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
      const pipe: Pipe = { client, upstream };
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
        if (holding[direction]) {
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
      upstream.on('close', end);
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
    hold(direction) {
      holding[direction] = true;
      heldCount[direction] = 0;
    },
    release(direction) {
      holding[direction] = false;
      for (const { pipe, data } of held[direction].splice(0)) send(pipe, direction, data);
    },
    heldBytes: (direction) => heldCount[direction],
    openSignals: () => signals.size,
    async close() {
      for (const socket of all) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
