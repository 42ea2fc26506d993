/**
 * Frames to the Voice SDK's sockets and who holds which socket: what every module of the twin sends
 * and asks (signalling.ts answers what the sockets send).
 */
import { sid, type Conn, type VoiceState } from './model';
import { frame } from './protocol';

/** Prints a frame (SWITCHBOARD_VOICE_LOG=1), SDPs shortened. */
export function trace(conn: Conn, dir: string, text: string): void {
  console.log(
    `voice ${conn.identity ?? '?'} ${dir} ${text.replace(/"sdp":"[^"]*"/g, '"sdp":"…"').slice(0, 400)}`,
  );
}

export function send(
  vs: VoiceState,
  conn: Conn | null,
  type: string,
  payload: Record<string, unknown> = {},
): void {
  if (!conn || conn.closed || conn.ws.readyState !== conn.ws.OPEN) return;
  const text = frame(type, payload);
  if (vs.logFrames) trace(conn, '->', text);
  conn.ws.send(text);
}

export function sendError(
  vs: VoiceState,
  conn: Conn,
  code: number,
  message: string,
  extra: Record<string, unknown> = {},
): void {
  send(vs, conn, 'error', { error: { code, message }, ...extra });
}

export const socketsOf = (vs: VoiceState, identity: string): Conn[] =>
  [...vs.conns].filter((c) => c.identity === identity && !c.closed);

export const registeredSocketsOf = (vs: VoiceState, identity: string): Conn[] =>
  socketsOf(vs, identity).filter((c) => c.registered && c.incoming);

/** A user-defined message (`content`, JSON text) to the SDK's call `callsid`: its `messageReceived`. */
export function sendUserMessage(
  vs: VoiceState,
  conn: Conn | null,
  callsid: string,
  content: string,
): void {
  send(vs, conn, 'message', {
    callsid,
    content,
    contenttype: 'application/json',
    messagetype: 'user-defined-message',
    voiceeventsid: sid('KX'),
  });
}

export function failBeforeRinging(
  vs: VoiceState,
  conn: Conn,
  tempSid: string,
  code: number,
  message: string,
): void {
  send(vs, conn, 'hangup', { callsid: tempSid, error: { code, message } });
}

export function unknownCall(vs: VoiceState, conn: Conn, callsid: string): void {
  // A call of theirs that just ended (its hangup crossed this message) is listed for a minute: no
  // error for it.
  const listed = vs.app?.registry.calls.get(callsid);
  const theirs = `client:${conn.identity ?? ''}`;
  if (listed && listed.ended !== null && (listed.from === theirs || listed.to === theirs)) return;
  sendError(vs, conn, 31100, 'No such call for this device', { callsid });
}
