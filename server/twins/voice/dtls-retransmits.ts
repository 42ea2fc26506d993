/**
 * werift's DTLS handshake, made safe against retransmitted flights (RFC 6347 §4.2.4: a peer that
 * hears nothing for its retransmission timer sends its last flight again, so each side must expect
 * a flight twice). werift 0.25 answers a few of them in ways that break the call, all met on a
 * busy machine, where an event-loop stall longer than the other side's timer (werift 500 ms, Chrome
 * less) makes the other side send again:
 *
 * - As the client, a second HelloVerifyRequest (the server answering both copies of a first
 *   ClientHello) throws in its flight 3 ("flight 3 twice"), and the transport is marked failed
 *   although the handshake then completes: that leg neither sends nor decrypts anything for the rest
 *   of the call. Dropped here once flight 3 has been sent: flight 3 is retransmitted on its own
 *   timer until flight 4 arrives.
 * - As the server, a copy of the first ClientHello (no cookie) arriving after flight 4 was sent
 *   makes it start flight 2 again: new random and new ECDH key pair, while the client goes on with
 *   the ones of flight 4, so the two sides derive different keys. And any ClientHello after the
 *   handshake completed resets the session (werift's renegotiation). Dropped here: once flight 4 is
 *   sent the client has the cookie, and browsers never renegotiate DTLS-SRTP.
 *
 * - A browser's first flight that arrives before werift starts its DTLS transport is lost: werift
 *   starts it once its own ICE agent calls the connection done, and the browser's may call it done
 *   first (a browser that controls ICE selects a pair as soon as a check succeeds) and send its
 *   ClientHello at once; dropped, it comes again only after the browser's retransmission timer
 *   (about 50 ms), on every call's setup. {@link keepEarlyRecords} keeps such records from the leg's
 *   ICE connection and hands them to the DTLS socket when it is made.
 *
 * Measured with tests/bench/voice-load.ts against a server stopped for 700 ms at a time (SIGSTOP):
 * see docs/call-quality.md. Installed once, by wrapping `RTCDtlsTransport.start`, where werift makes
 * each transport's DTLS socket (synchronously, before any packet can arrive).
 */
import { DtlsClient, DtlsServer, isDtls, RTCDtlsTransport } from 'werift';

/** Handshake types (RFC 5246 §7.4, RFC 6347 §4.2.2). */
const CLIENT_HELLO = 1;
const HELLO_VERIFY_REQUEST = 3;
/** werift's flight numbers: the last flight each side has sent. */
const SERVER_SENT_FLIGHT_4 = 4;
const CLIENT_SENT_FLIGHT_3 = 3;

interface Handshake {
  msg_type: number;
  fragment: Buffer;
}

/** What this module reads of werift's DTLS socket (not in its typings). */
interface Socket {
  connected: boolean;
  /** Where the socket takes each datagram its transport hears (`udpOnMessage`). */
  transport: { socket: { onData: (buf: Buffer) => void } };
  dtls: { flight: number };
  onHandleHandshakes: (assembled: Handshake[]) => Promise<void>;
}

/** A ClientHello's cookie length: version (2), random (32), session id (1 + n), cookie (1 + n). */
export function clientHelloCookieLength(fragment: Buffer): number {
  const sessionIdLength = fragment[34] ?? 0;
  return fragment[35 + sessionIdLength] ?? 0;
}

/** Whether a socket that has got this far should hand `handshake` on to werift. */
export function freshHandshake(
  side: 'client' | 'server',
  socket: Pick<Socket, 'connected' | 'dtls'>,
  handshake: Handshake,
): boolean {
  if (side === 'client')
    return !(
      handshake.msg_type === HELLO_VERIFY_REQUEST && socket.dtls.flight >= CLIENT_SENT_FLIGHT_3
    );
  if (handshake.msg_type !== CLIENT_HELLO) return true;
  if (socket.connected) return false;
  return !(
    clientHelloCookieLength(handshake.fragment) === 0 && socket.dtls.flight >= SERVER_SENT_FLIGHT_4
  );
}

function guard(socket: Socket, side: 'client' | 'server'): void {
  const handle = socket.onHandleHandshakes;
  if (typeof handle !== 'function' || typeof socket.dtls?.flight !== 'number') return;
  socket.onHandleHandshakes = (assembled) => {
    const kept = assembled.filter((h) => freshHandshake(side, socket, h));
    return kept.length > 0 ? handle(kept) : Promise.resolve();
  };
}

let installed = false;

/** At most this many early records are kept (a first flight is one to a few datagrams). */
const MAX_EARLY = 16;
/** DTLS records heard before each transport's DTLS socket was made, and the listener keeping them. */
const early = new WeakMap<object, { records: Buffer[]; stop: () => void }>();

/**
 * From now until its DTLS socket is made, DTLS records the leg's ICE connections hear are kept and
 * then handed to the socket (see the header). Call once the leg's transports exist (after
 * `setLocalDescription`), before ICE can connect.
 */
export function keepEarlyRecords(transports: readonly RTCDtlsTransport[]): void {
  for (const transport of transports) {
    if (early.has(transport)) continue;
    const records: Buffer[] = [];
    const sub = transport.iceTransport.connection.onData.subscribe((buf: Buffer) => {
      // werift's own test (RFC 7983: first byte 20 to 63), as its DTLS adapter uses.
      if (isDtls(buf) && records.length < MAX_EARLY) records.push(buf);
    });
    early.set(transport, { records, stop: () => sub.unSubscribe() });
  }
}

/** Wraps werift's DTLS transports (once per process). */
export function guardDtlsRetransmits(): void {
  if (installed) return;
  installed = true;
  const proto = RTCDtlsTransport.prototype as unknown as {
    start: (this: { dtls?: unknown }) => Promise<void>;
  };
  const start = proto.start;
  proto.start = function (this: { dtls?: unknown }) {
    // Nothing can arrive between this and the socket's own listener (made synchronously by start).
    const kept = early.get(this);
    early.delete(this);
    kept?.stop();
    const started = start.call(this);
    const socket = this.dtls;
    if (socket instanceof DtlsServer) guard(socket as unknown as Socket, 'server');
    else if (socket instanceof DtlsClient) guard(socket as unknown as Socket, 'client');
    if (kept && (socket instanceof DtlsServer || socket instanceof DtlsClient))
      for (const buf of kept.records) (socket as unknown as Socket).transport.socket.onData(buf);
    return started;
  };
}
