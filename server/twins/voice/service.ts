/**
 * The voice twin: the Voice SDK's signalling (PStream 1.6 over a WebSocket at /signal on the app's
 * own port) and the calls a TwiML application makes of it, with the server as the media end of every
 * leg (media.ts), as Twilio's media servers are. The protocol, sequences and error codes it follows
 * are in ../shared/protocol/voice-signalling.md; docs/twins-voice.md says what Twilio documents and
 * what the twin does.
 *
 * Every call is the application's (twiml/): a call placed by the SDK asks the application's Voice URL
 * and runs the TwiML it answers; changes to a live call come through the REST API (rest/). This file
 * makes the shared state (model.ts) and answers the service's API; signalling.ts has the sockets.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { DEFAULT_TWILIO_API_MOUNT } from '../sync/twilio-api/http';
import { holdMusic } from './audio';
import { SIGNAL_PATH, type VoiceState, type VoiceServiceOptions } from './model';
import { MAX_FRAME_BYTES } from './protocol';
import { dropConn, onConnection } from './signalling';
import { appMode, endAllAppCalls } from './twiml/application';
import { type TwimlApplication } from './model';

/** Where the `twilio` package's api.twilio.com requests arrive (`<mount>/api/…`). */
const REST_MOUNT = `${DEFAULT_TWILIO_API_MOUNT}/api`;
/** The twin-only routes of the phone network (rest/phones.ts): `<mount>/phones/…`. */
const PHONES_MOUNT = DEFAULT_TWILIO_API_MOUNT;
/** Where Voice Insights' requests go (`https://insights.twilio.com/v1/…`, server/twilio/client.ts). */
const INSIGHTS_MOUNT = `${DEFAULT_TWILIO_API_MOUNT}/insights`;

export interface VoiceService {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /**
   * From now on, calls placed by the SDK run `application`'s TwiML (its Voice URL asked as Twilio
   * asks it) and the tokens its API key signs are taken (none before).
   */
  useApplication(application: TwimlApplication): void;
  /**
   * Answers Twilio's Voice REST API for the application's calls at `/twilio/api/2010-04-01/…`
   * (where the `twilio` package's requests go, server/twilio/client.ts), and the twin-only routes
   * of its phone network at `/twilio/phones/…` (rest/phones.ts); false for any other request, or
   * when no application is in use.
   */
  handleRest(req: IncomingMessage, res: ServerResponse): boolean;
  close(): Promise<void>;
}

export function createVoiceService(options: VoiceServiceOptions): VoiceService {
  const vs: VoiceState = {
    options,
    now: options.now ?? Date.now,
    log: options.log ?? ((m: string) => console.error(m)),
    music: options.holdMusic ?? holdMusic(),
    rate: options.rate ?? { perSecond: 20, burst: 60 },
    logFrames: options.logFrames ?? process.env.SWITCHBOARD_VOICE_LOG === '1',
    conns: new Set(),
    app: null,
  };
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });

  const heartbeat = setInterval(() => {
    for (const conn of vs.conns) if (conn.ws.readyState === conn.ws.OPEN) conn.ws.send('\n');
  }, options.heartbeatMs ?? 5000);
  heartbeat.unref();

  let closed = false;
  return {
    handleUpgrade(req, socket, head) {
      const path = (req.url ?? '').split('?')[0];
      if (path !== SIGNAL_PATH) return false;
      if (closed) {
        socket.destroy();
        return true;
      }
      wss.handleUpgrade(req, socket, head, (ws) => onConnection(vs, ws));
      return true;
    },
    handleRest(req, res) {
      const url = req.url ?? '';
      if (vs.app && url.startsWith(INSIGHTS_MOUNT + '/v1/')) {
        req.url = url.slice(INSIGHTS_MOUNT.length);
        if (vs.app.insights(req, res)) return true;
        req.url = url;
        return false;
      }
      if (
        vs.app &&
        /^\/phones(\/|\?|$)/.test(url.slice(PHONES_MOUNT.length)) &&
        url.startsWith(PHONES_MOUNT)
      ) {
        req.url = url.slice(PHONES_MOUNT.length);
        void vs.app.phones(req, res);
        return true;
      }
      if (!vs.app || !url.startsWith(REST_MOUNT + '/2010-04-01/')) return false;
      req.url = (req.url ?? '').slice(REST_MOUNT.length);
      void vs.app.rest(req, res);
      return true;
    },
    useApplication(application) {
      vs.app = appMode(vs, application);
    },
    async close() {
      closed = true;
      clearInterval(heartbeat);
      if (vs.app) endAllAppCalls(vs);
      for (const conn of [...vs.conns]) {
        dropConn(vs, conn);
        conn.ws.terminate();
      }
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
