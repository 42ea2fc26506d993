/**
 * A leg's RTCP reports on RFC 3550's schedule, one compound packet each time (issue 26: server CPU
 * per bridged call).
 *
 * werift sends a sender report (with its SDES) and, separately, a receiver report for every leg,
 * each every 0.5–1.5 s, on a `timers/promises` timer with an AbortSignal apiece: two encrypted
 * packets a second per leg, and at 20 calls about an eighth of the server's CPU (a CPU profile;
 * docs/call-quality.md). RFC 3550 §6.2 recommends 5 s as the minimum interval, randomized over
 * [0.5, 1.5] of it (§6.3.1) and halved before the first report; Chrome reports on audio every 5 s
 * (libwebrtc's rtcp_sender.cc, its default audio report interval), and the browser at the other
 * end is all that reads these. Here each leg sends, on that schedule, one compound packet (§6.1):
 * its sender report once it has sent media, its receiver report, then the SDES CNAME. The fields
 * werift's round-trip and stats code reads (the sender's last report times, the receiver's
 * streams) are kept as its own loops keep them.
 */
import {
  RtcpReceiverInfo,
  RtcpRrPacket,
  RtcpSenderInfo,
  RtcpSourceDescriptionPacket,
  RtcpSrPacket,
  SourceDescriptionChunk,
  SourceDescriptionItem,
  compactNtp,
  timestampSeconds,
  type RTCPeerConnection,
} from 'werift';
import type { RtpReceiver, RtpSender } from './werift-internals';

/** RFC 3550 §6.2's recommended minimum interval, which Chrome uses for audio. */
export const REPORT_INTERVAL_MS = 5000;

/** The next report's delay: `interval` × U[0.5, 1.5] (RFC 3550 §6.3.1). */
export function nextDelay(interval: number, random: () => number = Math.random): number {
  return interval * (0.5 + random());
}

/** The report blocks for what the receiver has heard (RFC 3550 §6.4.1; as werift computes them). */
function reportBlocks(receiver: RtpReceiver): RtcpReceiverInfo[] {
  return Object.entries(receiver.remoteStreams).map(([key, stream]) => {
    const ssrc = Number(key);
    let lsr = 0;
    let dlsr = 0;
    const last = receiver.lastSRtimestamp[ssrc];
    const at = receiver.receiveLastSRTimestamp[ssrc];
    if (last && at !== undefined) {
      lsr = last;
      const delay = timestampSeconds() - at;
      if (delay > 0 && delay < 65536) dlsr = Math.floor(delay * 65536);
    }
    return new RtcpReceiverInfo({
      ssrc,
      fractionLost: stream.fraction_lost,
      packetsLost: stream.packets_lost,
      highestSequence: stream.max_seq,
      jitter: stream.jitter,
      lsr,
      dlsr,
    });
  });
}

/**
 * One compound report (RFC 3550 §6.1): a sender report once the leg has sent media, a receiver
 * report with the report blocks, then SDES's CNAME. The blocks go in the RR, not in the SR (which
 * RFC 3550 §6.4.1 also allows): werift, at the load generator's end and in the tests, reads report
 * blocks only from an RR (its RTCP router hands an SR to the receiver of that SSRC alone), and each
 * packet of a compound is read on its own, so Chrome reads them from either.
 */
export function compoundReport(sender: RtpSender, receiver: RtpReceiver): unknown[] {
  const packets: unknown[] = [];
  if (sender.packetCount > 0) {
    packets.push(
      new RtcpSrPacket({
        ssrc: sender.ssrc,
        senderInfo: new RtcpSenderInfo({
          ntpTimestamp: sender.ntpTimestamp,
          rtpTimestamp: sender.rtpTimestamp,
          packetCount: sender.packetCount,
          octetCount: sender.octetCount,
        }),
      }),
    );
    // What werift's round-trip code matches the browser's report blocks against (LSR, DLSR).
    sender.lastSRtimestamp = compactNtp(sender.ntpTimestamp);
    sender.lastSentSRTimestamp = timestampSeconds();
  }
  packets.push(new RtcpRrPacket({ ssrc: sender.ssrc, reports: reportBlocks(receiver) }));
  if (sender.cname)
    packets.push(
      new RtcpSourceDescriptionPacket({
        chunks: [
          new SourceDescriptionChunk({
            source: sender.ssrc,
            items: [new SourceDescriptionItem({ type: 1, text: sender.cname })],
          }),
        ],
      }),
    );
  return packets;
}

/**
 * The audio transceiver's reports on this schedule instead of werift's two loops: its sender's
 * and receiver's `runRtcp` (which werift calls on every packet it sends or receives, to start its
 * loop once) start this one. Stops when either is stopped (the leg closed).
 */
export function reportOnSchedule(pc: RTCPeerConnection, interval = REPORT_INTERVAL_MS): void {
  const transceiver = pc.getTransceivers().find((t) => t.kind === 'audio');
  if (!transceiver) return;
  const sender = transceiver.sender as unknown as RtpSender;
  const receiver = transceiver.receiver as unknown as RtpReceiver;
  let started = false;
  const report = () => {
    if (sender.stopped || receiver.stopped) return;
    sender.dtlsTransport.sendRtcp(compoundReport(sender, receiver)).catch(() => {
      // Not sent (the transport closing, or DTLS not up yet): the next report is on schedule.
    });
    setTimeout(report, nextDelay(interval)).unref();
  };
  // werift awaits its loop's promise nowhere; an empty one keeps its type.
  const start = (): Promise<void> => {
    if (!started) {
      started = true;
      // The first report after half the interval (RFC 3550 §6.2), randomized like the rest.
      setTimeout(report, nextDelay(interval / 2)).unref();
    }
    return Promise.resolve();
  };
  sender.runRtcp = start;
  receiver.runRtcp = start;
}
