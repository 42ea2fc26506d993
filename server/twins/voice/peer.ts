/**
 * A leg's werift peer connection and its setup (media.ts): the codecs it negotiates (Opus first,
 * PCMU), host candidates only (no STUN), loopback offered last, and the wait for gathering.
 */
import { RTCPeerConnection, RTCRtpCodecParameters } from 'werift';
import type { Codec } from './codec';
import type { MediaOptions } from './media-options';

const CODEC_PARAMETERS: Readonly<Record<Codec, () => RTCRtpCodecParameters>> = {
  // As browsers offer it: two channels in SDP (RFC 7587), mono audio; Chrome's payload type.
  opus: () =>
    new RTCRtpCodecParameters({
      mimeType: 'audio/opus',
      clockRate: 48_000,
      channels: 2,
      payloadType: 111,
      parameters: 'minptime=10;useinbandfec=1',
    }),
  pcmu: () =>
    new RTCRtpCodecParameters({
      mimeType: 'audio/PCMU',
      clockRate: 8000,
      channels: 1,
      payloadType: 0,
    }),
};

const DEFAULT_CODECS: readonly Codec[] = ['opus', 'pcmu'];

export function peerConnection(options: MediaOptions): RTCPeerConnection {
  return new RTCPeerConnection({
    codecs: {
      audio: (options.codecs ?? DEFAULT_CODECS).map((c) => CODEC_PARAMETERS[c]()),
      video: [],
    },
    // No STUN or TURN server: the server's candidates are its own addresses ({@link withoutStun}).
    iceServers: [],
    iceUseIpv6: false,
    iceUseTcp: false,
    iceAdditionalHostAddresses: ['127.0.0.1', ...(options.hostAddresses ?? [])],
    ...(options.portRange ? { icePortRange: options.portRange } : {}),
  });
}

/**
 * The leg's ICE agents gather host candidates only: the server's own addresses and `hostAddresses`
 * (VOICE_PUBLIC_ADDRESSES for one behind NAT). With no STUN server configured werift still asks
 * Google's public one (`stun.l.google.com:19302`, DEFAULT_STUN_SERVER in its ice.js) on every
 * leg: a request to Google from every call, and with no network, a gathering that waited out its
 * 5 s STUN timeout for some legs when 30 started at once. Called after the transports exist and
 * before gathering starts (setLocalDescription).
 */
export function withoutStun(pc: RTCPeerConnection): void {
  for (const transport of pc.iceTransports) delete transport.connection.stunServer;
}

/**
 * The loopback candidate (for clients on this machine that gather only loopback) gets the lowest
 * local preference (RFC 8445 §5.1.2.1). At the same priority it came first, and a browser (which
 * does not use loopback) checked it first, heard nothing, and checked the next one about 50 ms
 * later: every leg's ICE took 50–60 ms instead of 4–11 (docs/performance.md).
 */
export function loopbackLast(sdp: string): string {
  return sdp.replace(
    /^(a=candidate:\S+ \d+ udp )(\d+)( 127\.0\.0\.1 )/gim,
    (_, head: string, priority: string, tail: string) => {
      const p = Number(priority);
      return `${head}${Math.floor(p / 2 ** 24) * 2 ** 24 + (p % 256)}${tail}`;
    },
  );
}

export async function gathered(pc: RTCPeerConnection, timeoutMs: number): Promise<void> {
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
