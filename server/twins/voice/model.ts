/**
 * What the voice twin's modules share: the sockets and the state object (`VoiceState`) every module
 * is handed instead of a closure. Also the app's words about calls it reads from here for now (the
 * refusals of call controls and the pick-up sentences; server/twilio/control.ts).
 */
import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { AppMode } from './twiml/application';
import type { VoiceServiceOptions } from './service';

export const SIGNAL_PATH = '/signal';

/** Who a dialled `To` reaches. */
export type Destination =
  | { kind: 'person'; identity: string; name: string }
  /** A ring group: routed by the engine. `test`: an admin's Test this group call. */
  | { kind: 'group'; groupId: string; name: string; test: boolean }
  | { kind: 'unknown'; reason: string };

/** A call waiting in the park, as /hold lists it (the `holds` map item). */
export interface ParkedCall {
  callId: string;
  /** Who waits: their display name. */
  caller: string;
  parkedBy: string;
  parkedAt: number;
}

/** Why a hold, resume or park was refused: an HTTP status, a stable code and a sentence. */
export class CallControlError extends Error {
  constructor(
    readonly status: number,
    readonly code:
      | 'no_such_call'
      | 'not_your_call'
      | 'not_answered'
      | 'held_by_them'
      | 'bad_request'
      | 'not_found'
      | 'unavailable'
      | 'transfer_in_progress'
      | 'no_transfer',
    message: string,
  ) {
    super(message);
  }
}

/** Dialled to pick up a parked call: `park:<callId>`. */
import { PARK_PREFIX } from '../../../src/contracts/call-parameters';
export { PARK_PREFIX };
export const TAKEN_SENTENCE = 'A colleague already picked up this call.';
export const GONE_SENTENCE = 'This call is no longer on hold: the caller hung up.';

/** What the twin's modules share: its settings, the sockets and the application's calls. */
export interface VoiceState {
  readonly options: VoiceServiceOptions;
  readonly now: () => number;
  readonly log: (message: string) => void;
  /** Signs tokens before an application is in use (none are taken then). */
  readonly secret: Buffer;
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
  sessionRef: string | null;
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
