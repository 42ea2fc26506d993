/** What a Twilsock connection needs from the service that holds it (service.ts provides it). */
import type { Connection } from './connection';
import type { Core } from './core';
import type { ObjectKind, SyncRestError } from './errors';
import type { RestRequest, RestResponse } from './rest/context';
import type { SigningKey } from './token';

export interface ConnectionHost {
  core: Core;
  /** The API keys whose tokens the service takes, by SID (the issuer a token names). */
  keys: ReadonlyMap<string, SigningKey>;
  storageId: string;
  /** Per-connection token bucket for inbound frames. */
  rate: { perSecond: number; burst: number };
  /** Returns false when the identity already has the maximum number of connections. */
  register(conn: Connection, identity: string): boolean;
  unregister(conn: Connection): void;
  log(message: string, error?: unknown): void;
  /**
   * Runs a request, possibly batched with others into one transaction (group commit); `done` is called
   * after the commit, in submission order.
   */
  submit(run: () => RestResponse, done: (res: RestResponse) => void): void;
  /** Called after every tunnelled request (request log, tests). */
  onRequest?:
    ((identity: string, method: string, path: string, status: number) => void) | undefined;
  testHooks?:
    | ((conn: Connection, req: RestRequest) => { status: number; body?: unknown } | undefined)
    | undefined;
  /** Refuses a client's request before any handler runs (policy.ts); undefined allows everything. */
  authorize?: ((identity: string, req: RestRequest) => SyncRestError | null) | undefined;
  /** Whether an identity may read (subscribe to) an object; undefined allows everything. */
  mayRead?:
    ((identity: string, kind: ObjectKind, name: string | null) => SyncRestError | null) | undefined;
  /**
   * Whether a token's person still has access (their app session is live); checked on every init and update.
   * Undefined accepts every well-signed token (a service without an app around it).
   */
  tokenLive?: ((identity: string, sessionRef: string | null) => boolean) | undefined;
}
