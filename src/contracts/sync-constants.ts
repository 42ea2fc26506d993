/** Business constants and limits (seed section 9). */

/** Items per page when a caller does not ask for a size. */
export const DEFAULT_PAGE_SIZE = 50;

/** Order of item queries when a caller does not ask for one. */
export const DEFAULT_ORDER = 'asc' as const;

/** The service answers at most this many items per page (twilio-sync: "Maximum sync page size is 100"). */
export const MAX_PAGE_SIZE = 100;

/** A server refill fetches at least this many items. */
export const MIN_REFILL = 10;

/** Product id the Sync service is addressed with. */
export const DEFAULT_SYNC_PRODUCT_ID = 'data_sync';

/** Toasts are informational unless a caller says otherwise. */
export const DEFAULT_TOAST_TYPE = 'info' as const;

/**
 * Third-party timings, in milliseconds. The SDK applies them itself; they are listed so that
 * UI copy ("reconnecting...") and tests can reason about them.
 */
export const SYNC_TIMINGS = {
  websocketConnect: 5_000,
  heartbeat: 15_000,
  socketRequest: 30_000,
  upstreamMessage: 20_000,
  disconnect: 3_000,
  socketRetryMin: 1_000,
  socketRetryMax: 120_000,
  syncRetryMin: 4_000,
  syncRetryMax: 60_000,
} as const;

/**
 * How many times open_or_create re-opens after a 409 before giving up. A concurrent creator winning
 * once is normal; winning and deleting in a loop is not.
 */
export const MAX_REOPEN_ATTEMPTS = 3;
