/**
 * Parked calls on the embedded backend, the `holds` map /hold lists: what the voice service has
 * parked, written by the server only (nobody can forge or take a parked call from a browser).
 * Parked calls live in the voice service's process: after a restart none is parked, whatever the
 * map said, so the map starts empty.
 */
import type * as v from 'valibot';
import { HOLDS } from '../../src/contracts/objects';
import type { HoldSchema } from '../../src/contracts/records/hold';
import type { InternalSync } from '../twins/sync/internal';

/** A call the voice service parked: its id (the item's key) and the hold record. */
export type ParkedCall = { callId: string } & v.InferInput<typeof HoldSchema>;

export interface ParkedCalls {
  /** Empties the map (creating it when missing): nothing is parked at start. */
  clear(): void;
  parked(call: ParkedCall): void;
  unparked(callId: string): void;
}

export function createParkedCalls(sync: InternalSync | undefined): ParkedCalls {
  return {
    clear() {
      if (!sync) return;
      sync.ensureMap(HOLDS.name);
      for (const key of sync.mapItems(HOLDS.name).keys()) sync.removeMapItem(HOLDS.name, key);
    },
    parked: ({ callId, ...hold }) => sync?.setMapItem(HOLDS.name, callId, hold),
    unparked: (callId) => void sync?.removeMapItem(HOLDS.name, callId),
  };
}
