/**
 * The Voice SDK's side of the wire: sockets on /signal, their tokens (checked on every `listen` and at
 * expiry) and rate, frames in and out, and what each inbound message does (protocol.ts reads them).
 */
import type { WebSocket } from 'ws';
import type { Conn, VoiceState } from './model';
import { parseFrame, type ClientMessage } from './protocol';
import { failBeforeRinging, send, sendError, trace, unknownCall } from './wire';
import { verifyVoiceToken } from './token';
import {
  appCallOf,
  appMessage,
  appReconnect,
  appSocketLost,
  placeAppCall,
  tokenSecret,
} from './twiml/application';

/** Refuses a socket for good: the SDK destroys its stream on `close` and does not reconnect. */
export function refuse(vs: VoiceState, conn: Conn, code: number, message: string): void {
  sendError(vs, conn, code, message);
  send(vs, conn, 'close');
  dropConn(vs, conn);
  conn.ws.close(1000, 'access refused');
}

/** A socket went (closed, refused, or the server stopping): its calls end, as on Twilio. */
export function dropConn(vs: VoiceState, conn: Conn): void {
  if (conn.closed) return;
  conn.closed = true;
  if (conn.expiryTimer) clearTimeout(conn.expiryTimer);
  vs.conns.delete(conn);
  appSocketLost(vs, conn);
}

function allowFrame(vs: VoiceState, conn: Conn): boolean {
  const t = vs.now();
  conn.tokens = Math.min(
    vs.rate.burst,
    conn.tokens + ((t - conn.lastRefill) / 1000) * vs.rate.perSecond,
  );
  conn.lastRefill = t;
  if (conn.tokens < 1) return false;
  conn.tokens -= 1;
  return true;
}

function onListen(
  vs: VoiceState,
  conn: Conn,
  msg: Extract<ClientMessage, { type: 'listen' }>,
): void {
  // The tokens are Twilio's, signed with the account's API key (none is taken before the account's
  // TwiML app is set up).
  const check = vs.app
    ? verifyVoiceToken(tokenSecret(vs.app.application), msg.token, Math.floor(vs.now() / 1000))
    : ({ ok: false, code: 31202, message: 'JWT signature validation failed' } as const);
  if (!check.ok) {
    refuse(vs, conn, check.code, check.message);
    return;
  }
  if (conn.identity !== null && conn.identity !== check.identity) {
    refuse(vs, conn, 31204, 'JWT is invalid: a token for another identity');
    return;
  }
  conn.identity = check.identity;
  conn.exp = check.exp;
  conn.incoming = check.incoming;
  conn.outgoing = check.outgoing;
  conn.reconnectTimeout = msg.reconnectTimeout;
  if (conn.expiryTimer) clearTimeout(conn.expiryTimer);
  const ttlMs = check.exp * 1000 - vs.now();
  conn.expiryTimer = setTimeout(
    () => refuse(vs, conn, 31205, 'JWT token expired'),
    Math.max(0, ttlMs),
  );
  conn.expiryTimer.unref();
  send(vs, conn, 'connected', {
    token: { identity: check.identity, ttl: Math.max(0, Math.floor(ttlMs / 1000)) },
  });
}

function onMessage(vs: VoiceState, conn: Conn, msg: ClientMessage): void {
  if (msg.type === 'listen') {
    onListen(vs, conn, msg);
    return;
  }
  if (conn.identity === null) {
    sendError(vs, conn, 31204, 'JWT is invalid: send listen with a token first');
    return;
  }
  if (conn.exp * 1000 <= vs.now()) {
    refuse(vs, conn, 31205, 'JWT token expired');
    return;
  }
  switch (msg.type) {
    case 'register':
      if (msg.audio && !conn.incoming) {
        sendError(vs, conn, 31201, 'This token may not receive calls.');
        return;
      }
      conn.registered = msg.audio;
      send(vs, conn, msg.audio ? 'ready' : 'offline');
      return;
    case 'invite':
      if (!vs.app) {
        failBeforeRinging(vs, conn, msg.callsid, 31000, 'The service is not ready for calls yet.');
        return;
      }
      // The SDK sends its reconnect token after every `connected` (a token renewed on the same
      // socket too): a call this socket still holds goes on; any other has ended.
      if (msg.reconnect !== null) {
        if (!appReconnect(vs, conn, msg))
          failBeforeRinging(vs, conn, msg.callsid, 31209, 'Reconnect failed: the call has ended');
        return;
      }
      placeAppCall(vs, conn, msg).catch((err: unknown) => {
        vs.log(`voice twin: placing a call failed: ${String(err)}`);
        failBeforeRinging(vs, conn, msg.callsid, 31000, 'The call could not be placed.');
      });
      return;
    case 'answer':
    case 'reject':
    case 'hangup':
      if (!appMessage(vs, conn, msg)) unknownCall(vs, conn, msg.callsid);
      return;
    case 'reinvite':
    case 'dtmf':
    case 'message': {
      if (!appCallOf(vs, conn, msg.callsid)) {
        unknownCall(vs, conn, msg.callsid);
        return;
      }
      if (msg.type === 'message') {
        send(vs, conn, 'ack', {
          acktype: 'message',
          callsid: msg.callsid,
          voiceeventsid: msg.voiceeventsid,
        });
      }
      // ICE restarts are not supported yet: the leg ends at the server, so a lost path shows as
      // the SDK's own reconnecting state; DTMF from Chrome travels in-band (RFC 4733).
      return;
    }
  }
}

export function onConnection(vs: VoiceState, ws: WebSocket): void {
  const conn: Conn = {
    ws,
    identity: null,
    exp: 0,
    incoming: false,
    outgoing: false,
    registered: false,
    reconnectTimeout: 0,
    expiryTimer: null,
    tokens: vs.rate.burst,
    lastRefill: vs.now(),
    closed: false,
  };
  vs.conns.add(conn);
  ws.on('message', (data, isBinary) => {
    if (conn.closed) return;
    if (!allowFrame(vs, conn)) {
      sendError(vs, conn, 31206, 'Rate limit exceeded: too many messages');
      dropConn(vs, conn);
      ws.close(1008, 'rate limit');
      return;
    }
    if (isBinary) {
      sendError(vs, conn, 31100, 'Malformed message: binary frames are not accepted');
      return;
    }
    const text = Buffer.isBuffer(data)
      ? data.toString('utf8')
      : Buffer.concat(data as Buffer[]).toString('utf8');
    if (vs.logFrames && text !== '\n') trace(conn, '<-', text);
    const parsed = parseFrame(text);
    if (!parsed.ok) {
      sendError(
        vs,
        conn,
        31100,
        parsed.message,
        parsed.callsid === undefined ? {} : { callsid: parsed.callsid },
      );
      return;
    }
    if ('heartbeat' in parsed) return;
    try {
      onMessage(vs, conn, parsed.message);
    } catch (err) {
      vs.log(
        `voice: handling ${parsed.message.type} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
      );
      sendError(vs, conn, 31000, 'The server could not handle this message');
    }
  });
  ws.on('close', () => dropConn(vs, conn));
  ws.on('error', () => dropConn(vs, conn));
}
