/**
 * The twin's `as-server` test hook (service.ts, `/test/as-server`): any request to the Sync twin's
 * own REST handlers made as the service itself, past the ACL, so a test can put data in place that
 * no signed-in person may write (a `calls` row, another person's item). It goes through the same
 * handlers a tunnelled SDK request reaches: validated, committed in one transaction, logged with its
 * event id and fanned out to subscribers like any write. The app never uses it: it writes through
 * Twilio's REST API, as it does on Twilio.
 */
import type { Core } from './core';
import { SyncRestError } from './errors';
import type { Subscriber } from './events';
import { route } from './rest/router';

/**
 * The identity recorded as `created_by` for these writes. Real identities are email addresses, so
 * a name without `@` can never belong to a signed-in person.
 */
const SERVICE_IDENTITY = 'switchboard-server';

/** A request as the service: its status and body, errors included. */
export type AsServer = (
  method: string,
  path: string,
  body?: unknown,
) => { status: number; body?: unknown };

const nobody: Subscriber & { subscriptions: Map<string, string>; readonly open: boolean } = {
  notify() {},
  subscriptions: new Map(),
  open: false,
};

export function createAsServer(core: Core): AsServer {
  const ctx = {
    core,
    base: 'http://switchboard.internal',
    identity: SERVICE_IDENTITY,
    conn: nobody,
  };
  return (method, path, body) => {
    try {
      return route(ctx, {
        method,
        segments: path.split('/').filter(Boolean),
        params: {},
        headers: {},
        body,
      });
    } catch (e) {
      if (e instanceof SyncRestError) return { status: e.status, body: e.body() };
      throw e;
    }
  };
}
