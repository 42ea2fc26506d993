/**
 * Whether Sync's webhooks reach this server (issue 42, finding 11). Routing's copy of presence and
 * do not disturb follows them (sync-events.ts); if they never come (a proxy or firewall in front of
 * the server drops them, the public URL reaches another machine), the copy is only read whole again
 * every LIVE_REFRESH_MS and routing rang people up to 30 s after they turned do not disturb on,
 * with nothing logged.
 *
 * So the server checks: at start and then every {@link CHECK_EVERY_MS}, it writes an item of its
 * own to the {@link CHECK_MAP} map through the REST API, which Sync reports to the webhook like
 * every other change ("webhooks from REST" is on: https://www.twilio.com/docs/sync/webhooks), and
 * waits {@link CHECK_WAIT_MS} for that event.
 *
 * - It arrives: routing follows the events (a check that failed before is logged as over).
 * - It does not: the failure is logged with what an operator can do, and routing reads presence and
 *   do not disturb from Sync for every call (the fallback read) until a later check's event arrives.
 * - The write itself fails (Sync busy or down): nothing is concluded; the next check tries again.
 *
 * The item carries a ttl, so Sync deletes it if the server goes away; the map is the server's own
 * (no browser is granted it: acl.ts grants only the shared objects).
 */
import { randomUUID } from 'node:crypto';
import type { SyncRest } from '../twilio/sync-rest';
import type { RoutingData } from './routing-data';
import type { SyncEvent } from './sync-events';

/** The server's own map the checks write to. */
export const CHECK_MAP = 'switchboard-events-check';
/** How long a check waits for its event: Sync sends webhooks within moments of a change. */
export const CHECK_WAIT_MS = 10_000;
/** How often the webhooks are checked again (so stopping is noticed, and their return). */
export const CHECK_EVERY_MS = 60_000;
/** The check item's ttl (seconds): gone on its own when no server checks any more. */
const CHECK_TTL_SECONDS = 3600;

export type EventsState = 'unchecked' | 'arriving' | 'lost';

export interface EventsCheck {
  /** Every Sync event the webhook route takes (sync-events.ts): a check's own is recognised. */
  seen(event: SyncEvent): void;
  /** Checks now, then every CHECK_EVERY_MS until {@link close}. */
  start(): void;
  /** One check (tests, and `start`'s timer): resolves with what it found. */
  check(): Promise<EventsState>;
  /** What the last check found. */
  state(): EventsState;
  close(): void;
}

export function createEventsCheck(deps: {
  rest: Pick<SyncRest, 'ensureMap' | 'setMapItem'>;
  data: Pick<RoutingData, 'followEvents' | 'stopFollowing'>;
  /** Where Sync sends its webhooks (for the log; known once the server listens). */
  url: () => string;
  log: (message: string) => void;
  waitMs?: number;
  everyMs?: number;
}): EventsCheck {
  const waitMs = deps.waitMs ?? CHECK_WAIT_MS;
  const everyMs = deps.everyMs ?? CHECK_EVERY_MS;
  let state: EventsState = 'unchecked';
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  let mapMade = false;
  let writeFailing = false;
  /** The check waiting for its event: its nonce, and what to call when the event arrives. */
  let waiting: { nonce: string; arrived: () => void } | null = null;
  let running: Promise<EventsState> | null = null;

  async function once(): Promise<EventsState> {
    const nonce = randomUUID();
    let arrived!: () => void;
    const event = new Promise<'arrived'>((resolve) => (arrived = () => resolve('arrived')));
    waiting = { nonce, arrived };
    try {
      if (!mapMade) {
        await deps.rest.ensureMap(CHECK_MAP);
        mapMade = true;
      }
      await deps.rest.setMapItem(CHECK_MAP, 'events', { nonce }, CHECK_TTL_SECONDS);
      if (writeFailing) deps.log('sync: the webhook check can write to Sync again');
      writeFailing = false;
    } catch (err) {
      waiting = null;
      if (!writeFailing)
        deps.log(
          `sync: the webhook check could not write to Sync (${err instanceof Error ? err.message : String(err)}); it is tried again in ${everyMs / 1000} s`,
        );
      writeFailing = true;
      return state;
    }
    let wait: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      event,
      new Promise<'late'>((resolve) => (wait = setTimeout(() => resolve('late'), waitMs))),
    ]);
    clearTimeout(wait);
    waiting = null;
    if (closed) return state;
    if (outcome === 'arrived') {
      if (state === 'lost') {
        deps.log(
          `sync: Sync's webhooks arrive again at ${deps.url()}: presence and do not disturb follow them (no read per call)`,
        );
        deps.data.followEvents();
      }
      state = 'arriving';
    } else {
      if (state !== 'lost')
        deps.log(
          `sync: Sync's webhooks did not arrive at ${deps.url()} within ${waitMs / 1000} s of a change: presence and do not disturb are read from Sync for every call until they do (checked again every ${everyMs / 1000} s). Check that Twilio can reach that URL (a proxy or firewall in front of this server, SWITCHBOARD_PUBLIC_URL) (docs/twilio.md)`,
        );
      deps.data.stopFollowing();
      state = 'lost';
    }
    return state;
  }

  const check = (): Promise<EventsState> => {
    running ??= once().finally(() => (running = null));
    return running;
  };

  return {
    seen(event) {
      if (!waiting || !event.type.startsWith('map_item_')) return;
      if (event.params.MapUniqueName !== CHECK_MAP) return;
      if (event.data?.nonce === waiting.nonce) waiting.arrived();
    },
    start() {
      void check();
      timer = setInterval(() => void check(), everyMs);
      timer.unref();
    },
    check,
    state: () => state,
    close() {
      closed = true;
      if (timer) clearInterval(timer);
      waiting?.arrived();
    },
  };
}
