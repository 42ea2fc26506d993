/**
 * Bridging two legs (media.ts): each direction forwards packets untouched when both legs speak
 * one codec (only the payload type is the receiving leg's own), and transcodes between an Opus leg
 * and a PCMU leg (decode, resample 48/8 kHz, encode: codec.ts).
 */
import { RtpHeader, RtpPacket } from 'werift';
import { CLOCK_RATE, OPUS_FRAME, OpusBusy, transcoder, type Codec } from './codec';
import { fastForward } from './fast-path';
import type { MediaLeg } from './media';

/**
 * Copies audio both ways between two legs until the returned function is called: forwarded as it
 * is between legs of one codec, transcoded between an Opus leg and a PCMU leg.
 */
export function bridge(a: MediaLeg, b: MediaLeg): () => void {
  a.stopPlaying();
  b.stopPlaying();
  a.sourceChanged();
  b.sourceChanged();
  const ab = relay(a, b);
  const ba = relay(b, a);
  const offA = a.onRtp(ab.send);
  const offB = b.onRtp(ba.send);
  // Between legs of one codec, packets skip werift's pipeline while nothing else listens.
  const fast = a.codec === b.codec ? [fastForward(a, b, ab.send), fastForward(b, a, ba.send)] : [];
  return () => {
    for (const undo of fast) undo();
    offA();
    offB();
    ab.close();
    ba.close();
  };
}

/** One direction of a bridge: `from`'s packets to `to`, transcoded when their codecs differ. */
function relay(from: MediaLeg, to: MediaLeg): { send: (p: RtpPacket) => void; close: () => void } {
  let converter: RtpTranscoder | null = null;
  return {
    send: (packet) => {
      const codec = from.codecOf(packet.header.payloadType);
      if (!codec) return;
      if (codec === to.codec) {
        to.write(packet);
        return;
      }
      if (converter?.from !== codec || converter.to !== to.codec) {
        converter?.close();
        converter = null;
        try {
          converter = new RtpTranscoder(codec, to.codec);
        } catch (err) {
          // No Opus coder to be had now (MAX_OPEN_OPUS): this packet is lost, the next tries again.
          if (err instanceof OpusBusy) return;
          throw err;
        }
      }
      for (const out of converter.convert(packet)) to.write(out);
    },
    close: () => converter?.close(),
  };
}

/**
 * Transcodes one direction's packets: payloads through {@link transcoder}, timestamps moved to the
 * other codec's clock (from the first packet on), sequence numbers counted afresh.
 */
export class RtpTranscoder {
  private readonly codec;
  private readonly ratio: number;
  private seq = Math.floor(Math.random() * 0xffff);
  private base: { in: number; out: number } | null = null;
  constructor(
    readonly from: Codec,
    readonly to: Codec,
  ) {
    this.codec = transcoder(from, to);
    this.ratio = CLOCK_RATE[to] / CLOCK_RATE[from];
  }

  convert(packet: RtpPacket): RtpPacket[] {
    const payloads = this.codec.convert(packet.payload);
    if (payloads.length === 0) return [];
    const { timestamp } = packet.header;
    this.base ??= { in: timestamp, out: Math.floor(Math.random() * 0xffffffff) };
    const elapsed = (timestamp - this.base.in) >>> 0;
    const start = (this.base.out + Math.round(elapsed * this.ratio)) % 0x1_0000_0000;
    const step = this.to === 'opus' ? OPUS_FRAME : 0;
    return payloads.map((payload, i) => {
      this.seq = (this.seq + 1) & 0xffff;
      const header = new RtpHeader({
        payloadType: 0,
        sequenceNumber: this.seq,
        timestamp: (start + i * step) >>> 0,
        ssrc: packet.header.ssrc,
        marker: packet.header.marker && i === 0,
      });
      return new RtpPacket(header, payload);
    });
  }

  close(): void {
    this.codec.close();
  }
}
