/**
 * The Voice SDK's signalling frames (PStream 1.6), read defensively: every inbound frame becomes a
 * typed message or a reason it was refused. Nothing here trusts the client; the service decides
 * what each message may do.
 */

/** Largest frame accepted (an SDP is a few KB). */
export const MAX_FRAME_BYTES = 128 * 1024;
const MAX_SDP = 64 * 1024;
const MAX_SID = 64;

export type ClientMessage =
  | { type: 'listen'; token: string; reconnectTimeout: number }
  | { type: 'register'; audio: boolean }
  | {
      type: 'invite';
      callsid: string;
      sdp: string;
      params: URLSearchParams;
      reconnect: string | null;
    }
  | { type: 'answer'; callsid: string; sdp: string }
  | { type: 'reject'; callsid: string }
  | { type: 'hangup'; callsid: string }
  | { type: 'reinvite'; callsid: string; sdp: string }
  | { type: 'dtmf'; callsid: string; dtmf: string }
  | {
      type: 'message';
      callsid: string;
      voiceeventsid: string;
      content: unknown;
      contenttype: string;
      messagetype: string;
    };

export type Parsed =
  | { ok: true; message: ClientMessage }
  | { ok: true; heartbeat: true }
  | { ok: false; message: string; callsid?: string };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const SID = /^[A-Za-z0-9-]+$/;
const isSid = (v: unknown): v is string =>
  typeof v === 'string' && v.length > 0 && v.length <= MAX_SID && SID.test(v);
const isSdp = (v: unknown): v is string =>
  typeof v === 'string' && v.startsWith('v=0') && v.length <= MAX_SDP;

/** One text frame from the SDK: a heartbeat, a message, or why it is refused. */
export function parseFrame(text: string): Parsed {
  if (text === '\n') return { ok: true, heartbeat: true };
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    return { ok: false, message: 'Malformed message: not JSON' };
  }
  if (!isRecord(frame) || typeof frame.type !== 'string')
    return { ok: false, message: 'Malformed message: expected {type, payload}' };
  const payload = frame.payload === undefined ? {} : frame.payload;
  if (!isRecord(payload))
    return { ok: false, message: 'Malformed message: payload must be an object' };
  const callsid = isSid(payload.callsid) ? payload.callsid : undefined;
  const bad = (what: string): Parsed => ({
    ok: false,
    message: `Malformed ${String(frame.type).slice(0, 20)}: ${what}`,
    ...(callsid === undefined ? {} : { callsid }),
  });
  switch (frame.type) {
    case 'listen': {
      // A missing or non-string token is an invalid token (31204 and close), not a malformed frame.
      const token = typeof payload.token === 'string' ? payload.token : '';
      const rt = payload.reconnectTimeout;
      const reconnectTimeout =
        typeof rt === 'number' && Number.isFinite(rt)
          ? Math.max(0, Math.min(30, Math.floor(rt)))
          : 0;
      return { ok: true, message: { type: 'listen', token, reconnectTimeout } };
    }
    case 'register': {
      const media = payload.media;
      if (!isRecord(media) || typeof media.audio !== 'boolean')
        return bad('media.audio must be true or false');
      return { ok: true, message: { type: 'register', audio: media.audio } };
    }
    case 'invite': {
      if (callsid === undefined) return bad('callsid missing or malformed');
      if (!isSdp(payload.sdp)) return bad('sdp missing or malformed');
      const twilio = payload.twilio === undefined ? {} : payload.twilio;
      if (!isRecord(twilio)) return bad('twilio must be an object');
      const raw = twilio.params === undefined ? '' : twilio.params;
      if (typeof raw !== 'string' || raw.length > 4096) return bad('params must be a short string');
      const reconnect = payload.reconnect === undefined ? null : payload.reconnect;
      if (reconnect !== null && (typeof reconnect !== 'string' || reconnect.length > 256))
        return bad('reconnect must be a token');
      return {
        ok: true,
        message: {
          type: 'invite',
          callsid,
          sdp: payload.sdp,
          params: new URLSearchParams(raw),
          reconnect,
        },
      };
    }
    case 'answer':
    case 'reinvite': {
      if (callsid === undefined) return bad('callsid missing or malformed');
      if (!isSdp(payload.sdp)) return bad('sdp missing or malformed');
      return { ok: true, message: { type: frame.type, callsid, sdp: payload.sdp } };
    }
    case 'reject':
    case 'hangup': {
      if (callsid === undefined) return bad('callsid missing or malformed');
      return { ok: true, message: { type: frame.type, callsid } };
    }
    case 'dtmf': {
      if (callsid === undefined) return bad('callsid missing or malformed');
      if (typeof payload.dtmf !== 'string' || !/^[0-9*#wW]{1,32}$/.test(payload.dtmf))
        return bad('dtmf must be 1 to 32 of 0-9 * # w');
      return { ok: true, message: { type: 'dtmf', callsid, dtmf: payload.dtmf } };
    }
    case 'message': {
      if (callsid === undefined) return bad('callsid missing or malformed');
      if (!isSid(payload.voiceeventsid)) return bad('voiceeventsid missing');
      if (typeof payload.messagetype !== 'string' || typeof payload.contenttype !== 'string')
        return bad('messagetype and contenttype must be strings');
      return {
        ok: true,
        message: {
          type: 'message',
          callsid,
          voiceeventsid: payload.voiceeventsid,
          content: payload.content,
          contenttype: payload.contenttype.slice(0, 100),
          messagetype: payload.messagetype.slice(0, 100),
        },
      };
    }
    default:
      return {
        ok: false,
        message: `Unknown message type ${JSON.stringify(frame.type.slice(0, 40))}`,
      };
  }
}

/** A server frame as the SDK reads it. */
export function frame(type: string, payload: Record<string, unknown> = {}): string {
  return JSON.stringify({ type, version: '1.6', payload });
}
