/**
 * The dead-phone check (`GET /api/voice/registration`), the same on every backend. A page whose
 * Voice SDK socket died silently (a background tab frozen, a NAT that forgot the connection) still
 * believes it is registered; when it comes back to the foreground it asks the server, and registers
 * afresh if the server says no. Twilio offers no way to ask whether a Voice client is registered
 * (its registrations live in its signalling servers, with no REST resource; the voice twin offers
 * none either), so the check reads the person's `presence` item in Sync, which every signed-in page
 * renews on a heartbeat through the server (identity/presence.ts) and which lapses with its ttl
 * when the page stops (docs/twilio.md). That is the fact routing already uses to decide whether
 * someone can be rung (`availabilityFrom`): no live item, and the phone is treated as gone.
 */
import { PRESENCE } from '../../src/contracts/objects';
import { availabilityFrom } from '../routing/routing-data';
import type { SyncRest } from '../twilio/sync-rest';

export function createRegistrationCheck(deps: {
  rest: SyncRest;
  now: () => number;
  log: (message: string) => void;
}): (identity: string) => Promise<boolean> {
  return async (identity) => {
    try {
      const item = await deps.rest.getMapItem(PRESENCE.name, identity);
      return availabilityFrom(item ?? undefined, false, false, deps.now()) !== 'offline';
    } catch (err) {
      // Sync could not say: the check does not claim the phone is dead (the page keeps it).
      deps.log(`twilio: reading ${identity}'s presence for the registration check: ${String(err)}`);
      return true;
    }
  };
}
