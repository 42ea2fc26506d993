/**
 * What the voice twin's modules share: the sockets and the state object (`VoiceState`) every module
 * is handed instead of a closure.
 */
import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { AppMode } from './twiml/application';
import type { VoiceServiceOptions } from './service';

export const SIGNAL_PATH = '/signal';

/** What the twin's modules share: its settings, the sockets and the application's calls. */
export interface VoiceState {
  readonly options: VoiceServiceOptions;
  readonly now: () => number;
  readonly log: (message: string) => void;
  /** What a held or waiting caller hears by default. */
  readonly music: Buffer;
  /** Inbound frames per second per socket, and burst. */
  readonly rate: { perSecond: number; burst: number };
  /** Prints every signalling frame. */
  readonly logFrames: boolean;
  readonly conns: Set<Conn>;
  /** The TwiML application whose calls the twin runs (twiml/), once the server listens. */
  app: AppMode | null;
}

export interface Conn {
  ws: WebSocket;
  identity: string | null;
  exp: number;
  incoming: boolean;
  outgoing: boolean;
  registered: boolean;
  reconnectTimeout: number;
  expiryTimer: NodeJS.Timeout | null;
  tokens: number;
  lastRefill: number;
  closed: boolean;
}

export const sid = (prefix: string): string => `${prefix}${randomBytes(16).toString('hex')}`;
