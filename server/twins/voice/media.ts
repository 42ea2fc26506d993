/**
 * The server's end of each browser's media (the notes' fix C, a back-to-back user agent): every
 * call leg is a WebRTC peer connection (werift) that ends here. Legs are bridged by copying RTP
 * from one to the other; a leg can also be played tones (ringback) or kept alive alone (park).
 * PCMU only, as Twilio by default: both legs speak the same codec, so bridging never transcodes.
 */
import {
  MediaStreamTrack,
  RTCPeerConnection,
  RTCRtpCodecParameters,
  RtpHeader,
  RtpPacket,
} from 'werift';
import { FRAME_SAMPLES, PCMU_SILENCE, toneFrame, type Tone } from './audio';

export interface MediaOptions {
  /** UDP ports for ICE (VOICE_RTP_PORTS), inclusive; werift picks any free port when absent. */
  portRange?: [number, number];
  /** Addresses to offer besides the machine's interfaces (loopback is always offered). */
  hostAddresses?: readonly string[];
  /** How long to wait for candidate gathering before giving up on a leg. */
  gatherTimeoutMs?: number;
  /** Tests only: drops this share of the bridged packets sent to one kind of leg ({@link testDropFromEnv}). */
  testDrop?: TestDrop;
}

/**
 * A test hook: the relay drops `percent`% of the bridged packets it sends to every `leg` leg (the
 * caller's: the legs answering a browser's offer; the callee's: the legs offering to a browser),
 * evenly (every tenth at 10%), so a test can see what a lossy network does to a call.
 */
export interface TestDrop {
  percent: number;
  leg: 'caller' | 'callee';
}

/**
 * The test hook from SWITCHBOARD_TEST_DROP_PERCENT (1 to 100) and SWITCHBOARD_TEST_DROP_LEG
 * (`caller`, the default, or `callee`); none unless the percentage is set.
 */
export function testDropFromEnv(env: NodeJS.ProcessEnv): TestDrop | undefined {
  const percent = Number(env.SWITCHBOARD_TEST_DROP_PERCENT ?? '');
  if (!Number.isFinite(percent) || percent <= 0 || percent > 100) return undefined;
  return { percent, leg: env.SWITCHBOARD_TEST_DROP_LEG === 'callee' ? 'callee' : 'caller' };
}

const PCMU = (): RTCRtpCodecParameters =>
  new RTCRtpCodecParameters({
    mimeType: 'audio/PCMU',
    clockRate: 8000,
    channels: 1,
    payloadType: 0,
  });

/** One leg's state as the call logic sees it. */
export type LegState = 'new' | 'connecting' | 'connected' | 'failed' | 'closed';

/**
 * A browser's audio, ended at the server. Made either by answering the browser's offer (the caller's
 * leg: {@link answerLeg}) or by offering to it (the callee's leg: {@link offerLeg} then `accept`).
 */
export class MediaLeg {
  /** This side's SDP (an answer or an offer), with its candidates. */
  localSdp = '';
  state: LegState = 'new';
  /** RTP packets received, for tests and stats. */
  packetsIn = 0;
  packetsOut = 0;
  /** Bridged packets the test hook dropped instead of sending. */
  packetsDropped = 0;
  /** Of the packets sent to the browser, how many it says it lost (its latest RTCP report). */
  lostAtBrowser = 0;
  /** The test hook's share (0 to 100) and its running count, so drops are evenly spread. */
  private dropPercent = 0;
  private dropDue = 0;
  /** What the server is playing into the leg now: a sound, silence, or nothing (bridged or idle). */
  playing: 'sound' | 'silence' | null = null;
  private readonly track = new MediaStreamTrack({ kind: 'audio' });
  private readonly listeners = new Set<(packet: RtpPacket) => void>();
  private readonly stateListeners = new Set<(state: LegState) => void>();
  private player: NodeJS.Timeout | null = null;
  private seq = Math.floor(Math.random() * 0xffff);
  private timestamp = Math.floor(Math.random() * 0xffffffff);
  private readonly ssrc = Math.floor(Math.random() * 0xffffffff);

  constructor(private readonly pc: RTCPeerConnection) {
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

  /** Sends one packet (from a bridged leg): header extensions of the other leg are dropped. */
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
    const header = new RtpHeader({
      payloadType: 0,
      sequenceNumber: packet.header.sequenceNumber,
      timestamp: packet.header.timestamp,
      ssrc: packet.header.ssrc,
      marker: packet.header.marker,
    });
    this.packetsOut++;
    this.track.writeRtp(new RtpPacket(header, packet.payload));
  }

  /** The callee's answer to this leg's offer. */
  async accept(answerSdp: string): Promise<void> {
    await this.pc.setRemoteDescription({ type: 'answer', sdp: answerSdp });
  }

  /**
   * Plays into the leg until stopped or another sound starts: a `tone`'s cadence, a recording
   * (PCMU bytes, looped), or silence when null (which keeps packets flowing, so the browser's
   * stats and its media timeout see a live call).
   */
  play(sound: Tone | Buffer | null, onceThen?: () => void): void {
    this.stopPlaying();
    this.sourceChanged();
    let frame = 0;
    const silence = Buffer.alloc(FRAME_SAMPLES, PCMU_SILENCE);
    const frames = Buffer.isBuffer(sound) ? Math.ceil(sound.length / FRAME_SAMPLES) : 0;
    this.playing = sound === null ? 'silence' : 'sound';
    let finished = false;
    this.player = setInterval(() => {
      let payload: Buffer;
      if (sound === null || finished) payload = silence;
      else if (Buffer.isBuffer(sound)) {
        if (frames === 0) payload = silence;
        else {
          const at = (frame % frames) * FRAME_SAMPLES;
          payload = sound.subarray(at, at + FRAME_SAMPLES);
          // The last frame of a recording that does not fill it is padded with silence.
          if (payload.length < FRAME_SAMPLES)
            payload = Buffer.concat([payload, silence.subarray(payload.length)]);
        }
      } else payload = toneFrame(sound, frame);
      if (onceThen && !finished && frame + 1 >= frames) {
        // Played once: silence from now on, and whoever waits is told (after this frame is sent).
        finished = true;
        this.playing = 'silence';
        this.onStopped = null;
        queueMicrotask(onceThen);
      }
      frame++;
      this.seq = (this.seq + 1) & 0xffff;
      this.timestamp = (this.timestamp + FRAME_SAMPLES) >>> 0;
      const header = new RtpHeader({
        payloadType: 0,
        sequenceNumber: this.seq,
        timestamp: this.timestamp,
        ssrc: this.ssrc,
        marker: frame === 1,
      });
      this.packetsOut++;
      this.track.writeRtp(new RtpPacket(header, payload));
    }, 20);
    this.player.unref();
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
    if (this.player) clearInterval(this.player);
    this.player = null;
    this.playing = null;
    const stopped = this.onStopped;
    this.onStopped = null;
    stopped?.();
  }

  /** Tells the sender that packets now come from another source, so sequence and time run on. */
  sourceChanged(): void {
    const sender = this.pc.getSenders()[0];
    sender?.replaceRTP(new RtpHeader(), true);
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.stopPlaying();
    this.state = 'closed';
    for (const listener of this.stateListeners) listener('closed');
    this.listeners.clear();
    this.stateListeners.clear();
    try {
      await this.pc.close();
    } catch {
      // Already closed by the transport; nothing else to release.
    }
  }
}

function peerConnection(options: MediaOptions): RTCPeerConnection {
  return new RTCPeerConnection({
    codecs: { audio: [PCMU()], video: [] },
    iceUseIpv6: false,
    iceUseTcp: false,
    iceAdditionalHostAddresses: ['127.0.0.1', ...(options.hostAddresses ?? [])],
    ...(options.portRange ? { icePortRange: options.portRange } : {}),
  });
}

async function gathered(pc: RTCPeerConnection, timeoutMs: number): Promise<void> {
  if (pc.iceGatheringState === 'complete') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.unSubscribe();
      reject(new Error('ICE candidate gathering timed out'));
    }, timeoutMs);
    const sub = pc.iceGatheringStateChange.subscribe((state) => {
      if (state === 'complete') {
        clearTimeout(timer);
        sub.unSubscribe();
        resolve();
      }
    });
  });
}

/** A leg that answers the browser's offer (a caller). Its `localSdp` is the answer to send back. */
export async function answerLeg(offerSdp: string, options: MediaOptions = {}): Promise<MediaLeg> {
  const pc = peerConnection(options);
  const leg = new MediaLeg(pc);
  if (options.testDrop?.leg === 'caller') leg.dropForTest(options.testDrop.percent);
  try {
    await pc.setRemoteDescription({ type: 'offer', sdp: offerSdp });
    const transceiver = pc.getTransceivers().find((t) => t.kind === 'audio');
    if (!transceiver) throw new Error('The offer has no audio');
    transceiver.setDirection('sendrecv');
    await transceiver.sender.replaceTrack(leg.sendTrack);
    leg.watchReports();
    await pc.setLocalDescription(await pc.createAnswer());
    await gathered(pc, options.gatherTimeoutMs ?? 5000);
    leg.localSdp = pc.localDescription?.sdp ?? '';
    if (!/^m=audio [1-9]/m.test(leg.localSdp)) throw new Error('No common audio codec (PCMU)');
    return leg;
  } catch (err) {
    await leg.close();
    throw err;
  }
}

/** A leg that offers to a browser (a callee). Send `localSdp`, then `accept` its answer. */
export async function offerLeg(options: MediaOptions = {}): Promise<MediaLeg> {
  const pc = peerConnection(options);
  const leg = new MediaLeg(pc);
  if (options.testDrop?.leg === 'callee') leg.dropForTest(options.testDrop.percent);
  try {
    pc.addTransceiver(leg.sendTrack, { direction: 'sendrecv' });
    leg.watchReports();
    await pc.setLocalDescription(await pc.createOffer());
    await gathered(pc, options.gatherTimeoutMs ?? 5000);
    leg.localSdp = pc.localDescription?.sdp ?? '';
    return leg;
  } catch (err) {
    await leg.close();
    throw err;
  }
}

/** Copies audio both ways between two legs until the returned function is called. */
export function bridge(a: MediaLeg, b: MediaLeg): () => void {
  a.stopPlaying();
  b.stopPlaying();
  a.sourceChanged();
  b.sourceChanged();
  const offA = a.onRtp((packet) => b.write(packet));
  const offB = b.onRtp((packet) => a.write(packet));
  return () => {
    offA();
    offB();
  };
}
