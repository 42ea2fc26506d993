/**
 * werift's internal objects, as the bridge's fast path (fast-path.ts) and the report schedule
 * (rtcp.ts) read and write them: the fields of its RTP sender and receiver, their DTLS transport
 * and SRTP contexts, and the receive statistics, written down once. Not werift's published API
 * (0.25): each reader checks what it needs is there (fast-path.ts `wireOf`).
 */
import type { Socket } from 'node:dgram';

export interface SsrcState {
  rolloverCounter: number;
  lastSequenceNumber: number;
  rolloverHasProcessed?: boolean;
}
/** werift's SRTP context (rtp/src/srtp/context). */
export interface SrtpContext {
  profile: number;
  srtpSSRCStates: Record<number, SsrcState | undefined>;
  getSrtpSsrcState(ssrc: number): SsrcState;
  updateRolloverCount(sequenceNumber: number, state: SsrcState): void;
  cipher: { srtpSessionKey: Buffer; srtpSessionSalt: Buffer };
}
export interface UdpTransport {
  onData: (data: Buffer, addr: [string, number]) => void;
  socket: Socket;
  closed: boolean;
}
export interface CandidatePair {
  protocol: { transport?: UdpTransport };
  remoteAddr: [string, number];
  packetsSent: number;
  bytesSent: number;
}
/** werift's RTCDtlsTransport: its SRTP contexts, ICE connection, counters, and RTCP sending. */
export interface DtlsTransport {
  srtp?: { localContext?: SrtpContext; remoteContext?: SrtpContext };
  iceTransport?: {
    connection?: { nominated?: CandidatePair; protocols?: { transport?: UdpTransport }[] };
  };
  bytesReceived: number;
  packetsReceived: number;
  bytesSent: number;
  packetsSent: number;
  sendRtcp(packets: unknown[]): Promise<unknown>;
}
/** werift's receive statistics for one remote SSRC (the receiver reports' source). */
export interface StreamStatistics {
  readonly fraction_lost: number;
  readonly packets_lost: number;
  readonly max_seq: number;
  readonly jitter: number;
  /** Takes a packet in, as werift's receive path does. */
  add(
    packet: {
      header: { sequenceNumber: number; timestamp: number; serializeSize: number };
      payload: Buffer;
    },
    now?: number,
  ): void;
}
/** werift's RTCRtpReceiver: its statistics per remote SSRC and its report loop. */
export interface RtpReceiver {
  runRtcp(): Promise<void>;
  stopped?: boolean;
  remoteStreams: Record<number, StreamStatistics>;
  lastSRtimestamp: Record<number, number | undefined>;
  receiveLastSRTimestamp: Record<number, number | undefined>;
}
/** werift's RTCRtpSender: what its sender reports carry, its continuity, and its report loop. */
export interface RtpSender {
  runRtcp(): Promise<void>;
  stopped?: boolean;
  ssrc: number;
  cname?: string;
  sequenceNumber?: number;
  timestamp?: number;
  packetCount: number;
  octetCount: number;
  rtpTimestamp: number;
  ntpTimestamp: bigint;
  lastSRtimestamp?: number;
  lastSentSRTimestamp?: number;
  dtlsTransport: DtlsTransport;
}
