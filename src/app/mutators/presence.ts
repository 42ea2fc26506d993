/**
 * Writes to the `presence` map, each person only their own item (the service refuses the others):
 * the item with its ttl, its renewal, and its removal on sign-out. The heartbeat that calls them is
 * the presence machine's; what a person chooses in the top bar goes to that machine.
 */
import type { Actor } from 'xstate';
import { presenceRecord, type PresenceWrite } from '../../contracts/records/presence';
import type { presenceMachine, PresenceStatus } from '../../machines/presence.machine';
import { putItemFrom, removeItem, touchItem, type MapActor } from './core';

export type PresenceActor = Actor<typeof presenceMachine>;

/**
 * Writes the person's item whole, lapsing after `ttlSeconds` unless renewed. `onCall` is not this
 * tab's to say (the server's: it carries the calls), so the item is written with the value the
 * service holds at the moment of the write: a change the server makes meanwhile makes the service
 * refuse the write, and it is made again on the server's version.
 */
export async function publishPresence(
  map: MapActor,
  identity: string,
  item: Omit<PresenceWrite, 'onCall'>,
  ttlSeconds: number,
): Promise<void> {
  await putItemFrom(
    map,
    presenceRecord,
    identity,
    (current) => ({ ...item, onCall: current?.onCall === true }),
    { ttl: ttlSeconds },
  );
}

/** Extends the item's ttl without changing it (colleagues are sent no event). */
export async function renewPresence(
  map: MapActor,
  identity: string,
  ttlSeconds: number,
): Promise<void> {
  await touchItem(map, identity, ttlSeconds);
}

/** Removes the item: the person shows Offline at once. */
export async function withdrawPresence(map: MapActor, identity: string): Promise<void> {
  await removeItem(map, identity);
}

/** The status the person chose (the machine writes it at once and keeps it alive). */
export function setPresenceStatus(presence: PresenceActor, status: PresenceStatus): void {
  presence.send({ type: 'presence.setStatus', status });
}
