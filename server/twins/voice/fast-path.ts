/**
 * The bridge's fast path (issue 26: server CPU per bridged call): a packet between two legs of one
 * codec is taken off the leg's UDP socket as it arrives, decrypted, given the other leg's header
 * (its SSRC and payload type, sequence and time continued from what that leg sent before) and
 * encrypted and sent on the other leg's socket, in one synchronous step.
 *
 * werift's own path for the same packet parses the STUN header of every datagram, hands it through
 * four events (each of which starts a promise), parses the RTP header bit by bit, keeps receive
 * statistics and a NACK buffer, clones the packet, rebuilds its header extensions (a BigInt clock
 * for each) and sends it through two awaited promises: a bridged call cost 8× the CPU of a plain
 * UDP forwarder moving its packets (docs/call-quality.md).
 *
 * It is taken only for SRTP's AEAD_AES_128_GCM profile (RFC 7714, which werift prefers and both
 * browsers and werift clients pick) on both legs, and only while the bridge is all that listens
 * to the packets (a recorder, a test's drop hook, a transcoding bridge: werift's path, as before).
 * RTCP, STUN and DTLS always take werift's path, so receiver and sender reports, consent checks
 * and the browser's loss reports stay werift's; the sender's counters the reports carry (packets,
 * octets, last timestamp) and the rollover counters werift keeps per SSRC are moved along here, so
 * either path can carry the next packet.
 *
 * It reads werift's internals (0.25): {@link wireOf} returns null when any of them is not where
 * it is expected, and the bridge then stays on werift's path.
 */
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { ProtectionProfileAeadAes128Gcm, type RTCPeerConnection } from 'werift';
import type { RtpReceiver, RtpSender } from './werift-internals';

const TAG_BYTES = 16;
const HEADER_BYTES = 12;

/** Seconds from 1900 to 1970 (NTP's epoch to Unix's). */
const NTP_EPOCH_OFFSET = 2_208_988_800;

/** Now as a 64-bit NTP timestamp (RFC 3550 §4), for the sender report's pair of clocks. */
function ntpNow(): bigint {
  const ms = performance.timeOrigin + performance.now();
  const seconds = Math.floor(ms / 1000);
  const fraction = Math.floor(((ms - seconds * 1000) / 1000) * 2 ** 32);
  return (BigInt(seconds + NTP_EPOCH_OFFSET) << 32n) | BigInt(fraction);
}

/** Every this many packets sent, the sender report's clocks are moved (a BigInt each time). */
const CLOCKS_EVERY = 16;

/** An RTP packet from the browser, decrypted. */
export interface Opened {
  payloadType: number;
  seq: number;
  ts: number;
  marker: boolean;
  payload: Buffer;
}

/** One leg's transport as the fast path uses it. */
export interface Wire {
  /**
   * From now on `take` sees every datagram the leg's sockets receive first, and returns true for
   * one it handled (the latest taker only); the returned function stops it.
   */
  intercept(take: (data: Buffer) => boolean): () => void;
  /** A browser's SRTP packet decrypted, or null when werift's path is to take it. */
  open(packet: Buffer): Opened | null;
  /** Sends `payload` to the browser under this leg's header: its SSRC, `payloadType`, `seq`, `ts`. */
  send(payload: Buffer, payloadType: number, seq: number, ts: number, marker: boolean): void;
  /** The last sequence number and timestamp sent on this leg (werift's or ours), if any. */
  last(): { seq: number; ts: number } | null;
}

/** Whether a datagram is RTP, not RTCP (RFC 5761 §4: RTCP's types 192–223 in the second byte). */
export function isRtp(data: Buffer): boolean {
  if (data.length < HEADER_BYTES + TAG_BYTES) return false;
  const first = data[0]!;
  if (first < 128 || first > 191) return false;
  const second = data[1]! & 0x7f;
  return second < 64 || second > 95;
}

/** The RTP header's length (CSRCs and extension included), or -1 when it does not fit. */
export function headerLength(packet: Buffer, end: number): number {
  let length = HEADER_BYTES + 4 * (packet[0]! & 0x0f);
  if (packet[0]! & 0x10) {
    if (length + 4 > end) return -1;
    length += 4 + 4 * packet.readUInt16BE(length + 2);
  }
  return length <= end ? length : -1;
}

/** RFC 7714 §8.1: the IV, (00 00 ‖ SSRC ‖ ROC ‖ SEQ) XOR the session salt, written into `out`. */
function iv(out: Buffer, salt: Buffer, ssrc: number, roc: number, seq: number): Buffer {
  out.fill(0, 0, 2);
  out.writeUInt32BE(ssrc >>> 0, 2);
  out.writeUInt32BE(roc >>> 0, 6);
  out.writeUInt16BE(seq, 10);
  for (let i = 0; i < 12; i++) out[i]! ^= salt[i]!;
  return out;
}

/** The leg's wire, or null when werift's internals are not as expected or not ready (no SRTP yet). */
export function wireOf(pc: RTCPeerConnection): Wire | null {
  const sender = pc.getSenders()[0] as unknown as RtpSender | undefined;
  const receiver = pc.getReceivers()[0] as unknown as RtpReceiver | undefined;
  const dtls = sender?.dtlsTransport;
  const local = dtls?.srtp?.localContext;
  const remote = dtls?.srtp?.remoteContext;
  const connection = dtls?.iceTransport?.connection;
  const pair = connection?.nominated;
  const udp = pair?.protocol.transport;
  // Packets may arrive on any of the leg's sockets (the browser's choice of pair), as werift reads
  // them; they are sent from the nominated pair's, as werift sends them.
  const sockets = (connection?.protocols ?? []).flatMap((p) =>
    p.transport && typeof p.transport.onData === 'function' ? [p.transport] : [],
  );
  if (!sender || !receiver || !dtls || !local || !remote || !connection || !pair || !udp)
    return null;
  if (sockets.length === 0) return null;
  if (local.profile !== ProtectionProfileAeadAes128Gcm) return null;
  if (remote.profile !== ProtectionProfileAeadAes128Gcm) return null;
  if (typeof udp.onData !== 'function' || typeof udp.socket?.send !== 'function') return null;
  if (typeof local.getSrtpSsrcState !== 'function') return null;
  // Each socket is wrapped once, for the leg's life (the leg keeps its wire); a bridge sets and
  // clears the taker, so bridges made and undone in any order leave no stale wrapper behind.
  let taker: ((data: Buffer) => boolean) | null = null;
  // createCipheriv copies the IV, so one buffer each way serves every packet.
  const openIv = Buffer.alloc(12);
  const sendIv = Buffer.alloc(12);
  for (const socket of sockets) {
    const werift = socket.onData;
    socket.onData = (data, addr) => {
      if (!taker?.(data)) werift(data, addr);
    };
  }
  return {
    intercept(take) {
      taker = take;
      return () => {
        if (taker === take) taker = null;
      };
    },
    open(packet) {
      const end = packet.length - TAG_BYTES;
      const headerEnd = headerLength(packet, end);
      if (headerEnd < 0 || packet[0]! & 0x20) return null;
      const ssrc = packet.readUInt32BE(8);
      const state = remote.srtpSSRCStates[ssrc];
      const stats = receiver.remoteStreams[ssrc];
      // A new SSRC (the first packets): werift's path makes its state and statistics.
      if (!state || !stats) return null;
      const seq = packet.readUInt16BE(2);
      const { rolloverCounter, lastSequenceNumber, rolloverHasProcessed } = state;
      remote.updateRolloverCount(seq, state);
      try {
        const decipher = createDecipheriv(
          'aes-128-gcm',
          remote.cipher.srtpSessionKey,
          iv(openIv, remote.cipher.srtpSessionSalt, ssrc, state.rolloverCounter, seq),
        );
        decipher.setAAD(packet.subarray(0, headerEnd));
        decipher.setAuthTag(packet.subarray(end));
        const payload = decipher.update(packet.subarray(headerEnd, end));
        decipher.final();
        dtls.packetsReceived++;
        dtls.bytesReceived += packet.length;
        const ts = packet.readUInt32BE(4);
        // werift's receive statistics move on as on its path: the leg's receiver reports (loss,
        // highest sequence, jitter: RFC 3550 §6.4.1) describe every packet, not those before.
        stats.add({
          header: { sequenceNumber: seq, timestamp: ts, serializeSize: headerEnd },
          payload,
        });
        return {
          payloadType: packet[1]! & 0x7f,
          seq,
          ts,
          marker: (packet[1]! & 0x80) !== 0,
          payload,
        };
      } catch {
        // Not authentic: as werift does, dropped (its path says so in its log), state kept.
        Object.assign(state, { rolloverCounter, lastSequenceNumber, rolloverHasProcessed });
        return null;
      }
    },
    send(payload, payloadType, seq, ts, marker) {
      // The pair in use now (the browser may nominate another one during the call), as werift sends.
      const now = connection.nominated;
      const out = now?.protocol.transport;
      if (!now || !out || out.closed) return;
      // One buffer for the packet: header, sealed payload, tag.
      const packet = Buffer.allocUnsafe(HEADER_BYTES + payload.length + TAG_BYTES);
      const header = packet.subarray(0, HEADER_BYTES);
      header[0] = 0x80;
      header[1] = (marker ? 0x80 : 0) | payloadType;
      header.writeUInt16BE(seq, 2);
      header.writeUInt32BE(ts >>> 0, 4);
      header.writeUInt32BE(sender.ssrc >>> 0, 8);
      const state = local.getSrtpSsrcState(sender.ssrc);
      local.updateRolloverCount(seq, state);
      const cipher = createCipheriv(
        'aes-128-gcm',
        local.cipher.srtpSessionKey,
        iv(sendIv, local.cipher.srtpSessionSalt, sender.ssrc, state.rolloverCounter, seq),
      );
      cipher.setAAD(header);
      cipher.update(payload).copy(packet, HEADER_BYTES);
      cipher.final();
      cipher.getAuthTag().copy(packet, HEADER_BYTES + payload.length);
      out.socket.send(packet, now.remoteAddr[1], now.remoteAddr[0]);
      sender.sequenceNumber = seq;
      sender.timestamp = ts;
      sender.packetCount = (sender.packetCount + 1) >>> 0;
      // The report's RTP time and wall clock go together (RFC 3550 §6.4.1), moved now and then.
      if (sender.packetCount % CLOCKS_EVERY === 0) {
        sender.rtpTimestamp = ts;
        sender.ntpTimestamp = ntpNow();
      }
      sender.octetCount += payload.length;
      dtls.packetsSent++;
      dtls.bytesSent += packet.length;
      now.packetsSent++;
      now.bytesSent += packet.length;
    },
    last() {
      return sender.sequenceNumber === undefined || sender.timestamp === undefined
        ? null
        : { seq: sender.sequenceNumber, ts: sender.timestamp };
    },
  };
}

/** What the fast path needs of a leg (media.ts's MediaLeg). */
export interface FastLeg {
  readonly codec: string;
  codecOf(payloadType: number): string | null;
  /** The leg's wire once its transport is up, else null. */
  wire(): Wire | null;
  /** Whether `listener` is all that listens to the leg's packets. */
  onlyListener(listener: unknown): boolean;
  /** Whether the leg can send a forwarded packet through the fast path now. */
  fastReady(): boolean;
  /** Sends a forwarded packet through the fast path (sequence and time continued). */
  forwardFast(packet: Opened): void;
  /** A packet from the browser the fast path took. */
  countIn(): void;
  onState(listener: (state: string) => void): () => void;
}

/**
 * `from`'s packets to `to` through the fast path while `listener` (the bridge's, on werift's path)
 * is all that listens and both ends can; any other packet goes on to werift. Returns the undo.
 */
export function fastForward(from: FastLeg, to: FastLeg, listener: unknown): () => void {
  let undo: (() => void) | null = null;
  const install = (): boolean => {
    const wire = from.wire();
    if (!wire) return false;
    undo = wire.intercept((data) => {
      if (!isRtp(data) || !from.onlyListener(listener) || !to.fastReady()) return false;
      if (from.codecOf(data[1]! & 0x7f) !== to.codec) return false;
      const opened = wire.open(data);
      if (!opened) return false;
      from.countIn();
      to.forwardFast(opened);
      return true;
    });
    return true;
  };
  let offState: (() => void) | null = null;
  if (!install())
    offState = from.onState((state) => {
      if (state === 'connected' && install()) offState?.();
    });
  return () => {
    offState?.();
    undo?.();
  };
}
