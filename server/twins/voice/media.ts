/**
 * The server's end of each browser's media (the notes' fix C, a back-to-back user agent): every
 * call leg is a WebRTC peer connection (werift) that ends here. Legs are bridged by copying RTP
 * from one to the other; a leg can also be played tones (ringback) or kept alive alone (park).
 * Each leg negotiates Opus first (48 kHz) and PCMU as the fallback for a peer that speaks only
 * that: two Opus legs (or two PCMU legs) are bridged by forwarding packets untouched, an Opus leg
 * and a PCMU leg by transcoding (codec.ts). What the server plays arrives as μ-law or a tone and is
 * sent in the leg's own codec (sounds.ts keeps the Opus encoding of what repeats).
 */
import { MediaStreamTrack, RTCPeerConnection, RtpHeader, RtpPacket } from 'werift';
import { audioReader, CLOCK_RATE, OPUS_FRAME, OpusBusy, type Codec } from './codec';
import { guardDtlsRetransmits, keepEarlyRecords } from './dtls-retransmits';
import { wireOf, type FastLeg, type Opened, type Wire } from './fast-path';
import type { MediaOptions } from './media-options';
import { gathered, loopbackLast, peerConnection, withoutStun } from './peer';
import { reportOnSchedule } from './rtcp';
import { opusSource, pcmuSource } from './sounds';
import { FRAME_SAMPLES } from '../../platform/audio/g711';
import { type Tone } from '../../platform/audio/tones';

export type { MediaOptions } from './media-options';
export { loopbackLast } from './peer';

// Every leg's DTLS handshake survives retransmitted flights (a busy machine's stalls).
guardDtlsRetransmits();

/** One sound being played into a leg: its next frame's timer. */
interface Player {
  timer: NodeJS.Timeout | null;
}
/** A frame of what the server plays, in ms. */
const FRAME_MS = 20;
/** Frames a late player sends at once before it skips the rest (a stall of the event loop). */
const MAX_CATCH_UP = 3;
const codecOfMime = (mimeType: string): Codec | null =>
  /\/opus$/i.test(mimeType) ? 'opus' : /\/pcmu$/i.test(mimeType) ? 'pcmu' : null;

/** One leg's state as the call logic sees it. */
export type LegState = 'new' | 'connecting' | 'connected' | 'failed' | 'closed';

/** A leg's media as it stood when it closed (Voice Insights' Call Summary, rest/insights.ts). */
export interface LegTotals {
  /** RTP packets received from the browser. */
  packetsIn: number;
  /** RTP packets sent to the browser. */
  packetsOut: number;
  /** Of those sent, how many the browser's last RTCP receiver report said it lost. */
  lostAtBrowser: number;
  codec: Codec;
}

/**
 * A browser's audio, ended at the server. Made either by answering the browser's offer (the caller's
 * leg: {@link answerLeg}) or by offering to it (the callee's leg: {@link offerLeg} then `accept`).
 */
export class MediaLeg implements FastLeg {
  /** This side's SDP (an answer or an offer), with its candidates. */
  localSdp = '';
  state: LegState = 'new';
  /** RTP packets received, for tests and stats. */
  packetsIn = 0;
  packetsOut = 0;
  /** Of {@link packetsIn}, how many the bridge's fast path took (fast-path.ts). */
  fastPackets = 0;
  /** Bridged packets the test hook dropped instead of sending. */
  packetsDropped = 0;
  /** Of the packets sent to the browser, how many it says it lost (its latest RTCP report). */
  lostAtBrowser = 0;
  /** The test hook's share (0 to 100) and its running count, so drops are evenly spread. */
  private dropPercent = 0;
  private dropDue = 0;
  /** What the server is playing into the leg now: a sound, silence, or nothing (bridged or idle). */
  playing: 'sound' | 'silence' | null = null;
  /** The codec this leg sends (and the browser, answering or answered, sends too), once negotiated. */
  codec: Codec = 'pcmu';
  /** The RTP payload type of {@link codec} on this leg. */
  payloadType = 0;
  /** Every negotiated payload type and its codec, to read what arrives. */
  private readonly payloadTypes = new Map<number, Codec>([[0, 'pcmu']]);
  private readonly audioListeners = new Set<(pcm8k: Int16Array) => void>();
  private reader: { codec: Codec; read(p: Uint8Array): Int16Array; close(): void } | null = null;
  private readonly track = new MediaStreamTrack({ kind: 'audio' });
  private readonly listeners = new Set<(packet: RtpPacket) => void>();
  private readonly stateListeners = new Set<(state: LegState) => void>();
  private player: Player | null = null;
  private seq = Math.floor(Math.random() * 0xffff);
  private timestamp = Math.floor(Math.random() * 0xffffffff);
  private readonly ssrc = Math.floor(Math.random() * 0xffffffff);

  constructor(
    private readonly pc: RTCPeerConnection,
    /** False when the server runs with SWITCHBOARD_VOICE_FAST_PATH=0. */
    private readonly fastPathAllowed = true,
  ) {
    pc.onTrack.subscribe((remote) => {
      remote.onReceiveRtp.subscribe((packet) => {
        this.packetsIn++;
        for (const listener of this.listeners) listener(packet);
      });
    });
    pc.connectionStateChange.subscribe((s) => {
      const next: LegState =
        s === 'connected'
          ? 'connected'
          : s === 'failed'
            ? 'failed'
            : s === 'closed'
              ? 'closed'
              : s === 'disconnected'
                ? 'connecting'
                : 'connecting';
      if (this.state === 'closed' || next === this.state) return;
      this.state = next;
      for (const listener of this.stateListeners) listener(next);
    });
  }

  /** @internal the track this leg sends. */
  get sendTrack(): MediaStreamTrack {
    return this.track;
  }

  onRtp(listener: (packet: RtpPacket) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * What the browser says, as 8 kHz 16-bit PCM, decoded from whichever codec it arrives in (the
   * voicemail recorder). Each packet's audio is handed on as it arrives.
   */
  onAudio(listener: (pcm8k: Int16Array) => void): () => void {
    this.audioListeners.add(listener);
    const off = this.audioListeners.size === 1 ? this.onRtp((p) => this.hear(p)) : null;
    if (off) this.stopHearing = off;
    return () => {
      this.audioListeners.delete(listener);
      if (this.audioListeners.size === 0) {
        this.stopHearing?.();
        this.stopHearing = null;
        this.reader?.close();
        this.reader = null;
      }
    };
  }

  private stopHearing: (() => void) | null = null;

  private hear(packet: RtpPacket): void {
    const codec = this.codecOf(packet.header.payloadType);
    if (!codec) return;
    if (this.reader?.codec !== codec) {
      this.reader?.close();
      this.reader = null;
      try {
        this.reader = { codec, ...audioReader(codec) };
      } catch (err) {
        // No Opus decoder to be had now (MAX_OPEN_OPUS): this packet goes unheard.
        if (err instanceof OpusBusy) return;
        throw err;
      }
    }
    const pcm = this.reader.read(packet.payload);
    if (pcm.length > 0) for (const listener of this.audioListeners) listener(pcm);
  }

  /** The codec of a payload type this leg negotiated, or null for one it did not. */
  codecOf(payloadType: number): Codec | null {
    return this.payloadTypes.get(payloadType) ?? null;
  }

  /** @internal Reads the codecs the negotiation settled on (after the answer is set). */
  negotiated(): void {
    const transceiver = this.pc.getTransceivers().find((t) => t.kind === 'audio');
    for (const c of transceiver?.codecs ?? []) {
      const codec = codecOfMime(c.mimeType);
      if (codec) this.payloadTypes.set(c.payloadType, codec);
    }
    const sending = transceiver?.sender.codec;
    const codec = sending ? codecOfMime(sending.mimeType) : null;
    if (sending && codec) {
      this.codec = codec;
      this.payloadType = sending.payloadType;
    }
  }

  onState(listener: (state: LegState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /** @internal Keeps what the browser's RTCP reports say it lost of what this leg sent it. */
  watchReports(): void {
    const sender = this.pc.getSenders()[0];
    sender?.onRtcp.subscribe((packet) => {
      if (!('reports' in packet)) return;
      for (const report of packet.reports)
        if (report.ssrc === sender.ssrc) this.lostAtBrowser = report.packetsLost;
    });
  }

  /** @internal Tests only: the share of bridged packets this leg drops. */
  dropForTest(percent: number): void {
    this.dropPercent = percent;
  }

  /**
   * Sends one packet (from a bridged leg speaking this leg's codec) with this leg's payload type;
   * sequence number and timestamp as they came. Header extensions of the other leg are dropped.
   */
  write(packet: RtpPacket): void {
    if (this.state === 'closed') return;
    if (this.dropPercent > 0) {
      this.dropDue += this.dropPercent;
      if (this.dropDue >= 100) {
        this.dropDue -= 100;
        this.packetsDropped++;
        return;
      }
    }
    this.send(forwarded(packet, this.payloadType));
  }

  /** The callee's answer to this leg's offer. */
  async accept(answerSdp: string): Promise<void> {
    await this.pc.setRemoteDescription({ type: 'answer', sdp: answerSdp });
    this.negotiated();
  }

  /**
   * Plays into the leg until stopped or another sound starts: a `tone`'s cadence, a recording
   * (PCMU bytes, looped), or silence when null (which keeps packets flowing, so the browser's
   * stats and its media timeout see a live call). Sent in the leg's codec: on an Opus leg the
   * sound is encoded once (sounds.ts) and its frames sent with timestamps 960 apart.
   */
  play(sound: Tone | Buffer | null, onceThen?: () => void): void {
    this.stopPlaying();
    this.sourceChanged();
    let frame = 0;
    const source = this.codec === 'opus' ? opusSource(sound) : pcmuSource(sound);
    const { frames } = source;
    const step = this.codec === 'opus' ? OPUS_FRAME : FRAME_SAMPLES;
    this.playing = sound === null ? 'silence' : 'sound';
    let finished = false;
    const sendFrame = () => {
      const payload = finished ? source.silence() : source.frame(frame);
      if (onceThen && !finished && frame + 1 >= frames) {
        // Played once: silence from now on, and whoever waits is told (after this frame is sent).
        finished = true;
        this.playing = 'silence';
        this.onStopped = null;
        queueMicrotask(onceThen);
      }
      frame++;
      this.seq = (this.seq + 1) & 0xffff;
      this.timestamp = (this.timestamp + step) >>> 0;
      const header = new RtpHeader({
        payloadType: this.payloadType,
        sequenceNumber: this.seq,
        timestamp: this.timestamp,
        ssrc: this.ssrc,
        marker: frame === 1,
      });
      this.send(new RtpPacket(header, payload));
    };
    // Frames leave on the audio's own clock (start + n × 20 ms), not on a 20 ms interval: Node's
    // setInterval counts each period from when its callback ran, so every late tick was lost for
    // good (237 packets in 5 s instead of 250 on a busy machine), and the browser heard a sound
    // played 5% slow, its jitter buffer starved and stretching. A late timer sends what is due;
    // more than MAX_CATCH_UP frames behind (a stall), the missed ones are skipped, not sent in a
    // burst: the timeline runs on and the browser hears a short gap.
    const started = performance.now();
    let sent = 0;
    const player: Player = { timer: null };
    const tick = () => {
      if (this.player !== player) return;
      const behind = Math.floor((performance.now() - started) / FRAME_MS) + 1 - sent;
      if (behind > MAX_CATCH_UP) {
        const skipped = behind - 1;
        sent += skipped;
        frame += skipped;
        this.timestamp = (this.timestamp + skipped * step) >>> 0;
      }
      while (this.player === player && started + sent * FRAME_MS <= performance.now()) {
        sendFrame();
        sent++;
      }
      if (this.player !== player) return;
      player.timer = setTimeout(tick, Math.max(0, started + sent * FRAME_MS - performance.now()));
      player.timer.unref();
    };
    this.player = player;
    tick();
  }

  /**
   * Plays a recording (PCMU bytes) once, then silence; resolves true when it played to its end,
   * false when something else was played, the leg stopped playing or closed first.
   */
  playOnce(sound: Buffer): Promise<boolean> {
    return new Promise((resolve) => {
      this.play(sound, () => resolve(true));
      this.onStopped = () => resolve(false);
    });
  }

  private onStopped: (() => void) | null = null;

  stopPlaying(): void {
    if (this.player?.timer) clearTimeout(this.player.timer);
    this.player = null;
    this.playing = null;
    const stopped = this.onStopped;
    this.onStopped = null;
    stopped?.();
  }

  /** @internal The leg's transport for the bridge's fast path (fast-path.ts), once it is up. */
  wire(): Wire | null {
    if (this.fastWire === undefined && this.state === 'connected')
      this.fastWire = this.fastPathAllowed ? wireOf(this.pc) : null;
    return this.state === 'closed' ? null : (this.fastWire ?? null);
  }

  /** Read once connected; null when this leg cannot take the fast path (not AES-GCM, say). */
  private fastWire: Wire | null | undefined = undefined;
  /** What the fast path adds to a forwarded packet's sequence and time; null: worked out anew. */
  private fastOffsets: { seq: number; ts: number } | null = null;

  /** @internal */
  onlyListener(listener: unknown): boolean {
    return this.listeners.size === 1 && this.listeners.has(listener as never);
  }

  /** @internal */
  fastReady(): boolean {
    return this.state === 'connected' && this.dropPercent === 0 && this.wire() !== null;
  }

  /** @internal */
  countIn(): void {
    this.packetsIn++;
    this.fastPackets++;
  }

  /**
   * @internal A packet from a bridged leg of this codec through the fast path: its sequence and
   * time continue from what this leg sent before (werift's packets or the fast path's), as
   * {@link send} does at a change of source.
   */
  forwardFast(packet: Opened): void {
    const wire = this.wire();
    if (!wire) return;
    const now = performance.now();
    if (this.continuityDue || this.fastOffsets === null) {
      this.continuityDue = false;
      const last = wire.last();
      const step = this.stepSince(now);
      this.fastOffsets =
        last === null
          ? { seq: 0, ts: 0 }
          : { seq: (last.seq + 1 - packet.seq) & 0xffff, ts: (last.ts + step - packet.ts) >>> 0 };
    }
    const { seq, ts } = this.fastOffsets;
    wire.send(
      packet.payload,
      this.payloadType,
      (packet.seq + seq) & 0xffff,
      (packet.ts + ts) >>> 0,
      packet.marker,
    );
    this.lastSentAt = now;
    this.packetsOut++;
  }

  /** Tells the sender that packets now come from another source, so sequence and time run on. */
  sourceChanged(): void {
    this.continuityDue = true;
  }

  private continuityDue = false;
  private lastSentAt: number | null = null;

  /**
   * The timestamp step at a change of source: the time since the leg's last packet, in its clock
   * (at least 1; 1 before any packet).
   */
  private stepSince(now: number): number {
    return this.lastSentAt === null
      ? 1
      : Math.max(1, Math.round(((now - this.lastSentAt) * CLOCK_RATE[this.codec]) / 1000));
  }

  /**
   * Every packet to the browser goes out here. The first packet of a new source (a sound, then the
   * other leg's audio) continues the stream's sequence and its timeline by the time that has
   * passed since the last packet: werift's own step at a switch is 1 sample, so the browser saw a
   * packet 20 ms or more later than its timestamp said, read it as network delay, and its jitter
   * buffer held more audio for the rest of the call.
   */
  private send(packet: RtpPacket): void {
    const now = performance.now();
    // After the fast path's packets, werift's own offsets are from before them: frozen anew.
    if (this.continuityDue || this.fastOffsets !== null) {
      this.continuityDue = false;
      this.fastOffsets = null;
      const step = this.stepSince(now);
      this.pc.getSenders()[0]?.replaceRTP(new RtpHeader(), true, step);
    }
    this.lastSentAt = now;
    this.packetsOut++;
    this.track.writeRtp(packet);
  }

  /** Its packets in and out, its losses and codec so far (final once it has closed). */
  totals(): LegTotals {
    const { packetsIn, packetsOut, lostAtBrowser, codec } = this;
    return { packetsIn, packetsOut, lostAtBrowser, codec };
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.stopPlaying();
    this.state = 'closed';
    for (const listener of this.stateListeners) listener('closed');
    this.listeners.clear();
    this.stateListeners.clear();
    this.audioListeners.clear();
    this.reader?.close();
    this.reader = null;
    try {
      await this.pc.close();
    } catch {
      // Already closed by the transport; nothing else to release.
    }
  }
}

/** A leg that answers the browser's offer (a caller). Its `localSdp` is the answer to send back. */
export async function answerLeg(offerSdp: string, options: MediaOptions = {}): Promise<MediaLeg> {
  const pc = peerConnection(options);
  const leg = new MediaLeg(pc, options.fastPath !== false);
  if (options.testDrop?.leg === 'caller') leg.dropForTest(options.testDrop.percent);
  try {
    await pc.setRemoteDescription({ type: 'offer', sdp: offerSdp });
    const transceiver = pc.getTransceivers().find((t) => t.kind === 'audio');
    if (!transceiver) throw new Error('The offer has no audio');
    transceiver.setDirection('sendrecv');
    // The browser's offer says `a=setup:actpass`; the server answers `passive`, so the browser is
    // the DTLS client (RFC 5763 §5: the answerer may take either role). werift, as a DTLS client,
    // waits a fixed 100 ms before its first flight (RTCDtlsTransport.start), which was on every
    // call's setup; as the server it answers at once.
    transceiver.dtlsTransport.role = 'server';
    await transceiver.sender.replaceTrack(leg.sendTrack);
    leg.watchReports();
    reportOnSchedule(pc);
    withoutStun(pc);
    await pc.setLocalDescription(await pc.createAnswer());
    keepEarlyRecords(pc.getTransceivers().map((t) => t.dtlsTransport));
    leg.negotiated();
    await gathered(pc, options.gatherTimeoutMs ?? 5000);
    leg.localSdp = loopbackLast(pc.localDescription?.sdp ?? '');
    if (!/^m=audio [1-9]/m.test(leg.localSdp))
      throw new Error('No common audio codec (Opus or PCMU)');
    return leg;
  } catch (err) {
    await leg.close();
    throw err;
  }
}

/** A leg that offers to a browser (a callee). Send `localSdp`, then `accept` its answer. */
export async function offerLeg(options: MediaOptions = {}): Promise<MediaLeg> {
  const pc = peerConnection(options);
  const leg = new MediaLeg(pc, options.fastPath !== false);
  if (options.testDrop?.leg === 'callee') leg.dropForTest(options.testDrop.percent);
  try {
    pc.addTransceiver(leg.sendTrack, { direction: 'sendrecv' });
    leg.watchReports();
    reportOnSchedule(pc);
    withoutStun(pc);
    await pc.setLocalDescription(await pc.createOffer());
    keepEarlyRecords(pc.getTransceivers().map((t) => t.dtlsTransport));
    await gathered(pc, options.gatherTimeoutMs ?? 5000);
    leg.localSdp = loopbackLast(pc.localDescription?.sdp ?? '');
    return leg;
  } catch (err) {
    await leg.close();
    throw err;
  }
}

/** A packet as `forwarded` to another leg: its payload type rewritten, the rest of its header kept. */
export function forwarded(packet: RtpPacket, payloadType: number): RtpPacket {
  const header = new RtpHeader({
    payloadType,
    sequenceNumber: packet.header.sequenceNumber,
    timestamp: packet.header.timestamp,
    ssrc: packet.header.ssrc,
    marker: packet.header.marker,
  });
  return new RtpPacket(header, packet.payload);
}
