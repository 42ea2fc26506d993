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
 * Measured with tests/bench/voice-load.ts against a server stopped for 700 ms at a time (SIGSTOP):
 * see docs/call-quality.md. Installed once, by wrapping `RTCDtlsTransport.start`, where werift makes
 * each transport's DTLS socket (synchronously, before any packet can arrive).
 */
import { DtlsClient, DtlsServer, RTCDtlsTransport } from 'werift';

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

/** Wraps werift's DTLS transports (once per process). */
export function guardDtlsRetransmits(): void {
  if (installed) return;
  installed = true;
  const proto = RTCDtlsTransport.prototype as unknown as {
    start: (this: { dtls?: unknown }) => Promise<void>;
  };
  const start = proto.start;
  proto.start = function (this: { dtls?: unknown }) {
    const started = start.call(this);
    const socket = this.dtls;
    if (socket instanceof DtlsServer) guard(socket as unknown as Socket, 'server');
    else if (socket instanceof DtlsClient) guard(socket as unknown as Socket, 'client');
    return started;
  };
}
