/**
 * Limits of the Sync twin. Each one is documented in docs/sync-service.md; change both together.
 */
export const limits = {
  /** A Twilsock frame larger than this is answered 413 (if its header can be read) and otherwise ignored. */
  maxFrameBytes: 256 * 1024,
  /** The WebSocket layer closes the socket (code 1009) above this: protects memory before any parsing. */
  maxSocketMessageBytes: 4 * 1024 * 1024,
  /** JSON data of one document, list item, map item or list context. */
  maxDataBytes: 16 * 1024,
  /** Nesting depth of any data object (deeper → 400). */
  maxDataDepth: 32,
  /** JSON data of one stream message. */
  maxStreamMessageBytes: 4 * 1024,
  /** Unique names (the cloud's 54302 answer says "length 1-320", errors.ts) and map item keys. */
  maxNameLength: 320,
  maxKeyLength: 320,
  /** Item queries: default page size; pages hold at most `maxPageSize` items (a larger PageSize is clamped,
   * because the SDK itself asks for pageSize + 1); a PageSize above `maxRequestedPageSize` is answered 400/20007. */
  defaultPageSize: 50,
  maxPageSize: 100,
  maxRequestedPageSize: 1000,
  /** Largest ttl accepted, in seconds (one year, as Twilio). */
  maxTtlSeconds: 31_536_000,
  /** Concurrent WebSocket connections per identity; the next init is denied with 429 and a reason. */
  maxConnectionsPerIdentity: 20,
  /** Per-connection token bucket for inbound frames (defaults; SWITCHBOARD_SYNC_RATE="perSecond,burst"). */
  rateBurst: 10_000,
  ratePerSecond: 5_000,
  /** Frames beyond the bucket are answered 429; this many in a row closes the socket. */
  maxThrottledInARow: 5_000,
  /** A socket that has not sent a valid `init` by then is closed. */
  initTimeoutMs: 30_000,
  /** Unsent bytes queued for one socket before it is considered stuck and dropped. */
  maxBufferedBytes: 16 * 1024 * 1024,
  /** Subscriptions held by one connection. */
  maxSubscriptionsPerConnection: 10_000,
  /** Requests in one /v4/Subscriptions batch. */
  maxSubscriptionBatch: 100,
  /** Items returned by an Insights query. */
  maxQueryResults: 200,
} as const;
