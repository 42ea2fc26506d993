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
  /** Refuses a client's request before any handler runs (the service's ACL, policy.ts). */
  authorize(identity: string, req: RestRequest): SyncRestError | null;
  /** Whether an identity may read (subscribe to) an object (the service's ACL). */
  mayRead(identity: string, kind: ObjectKind, name: string | null): SyncRestError | null;
}
