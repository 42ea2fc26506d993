/**
 * The person's own item of the `presence` map, written by the server (`/api/presence`: nobody can
 * write a colleague's): their status with the ttl, its renewal, and its removal on sign-out. The
 * heartbeat that calls them is the presence machine's; what a person chooses in the top bar goes to
 * that machine.
 */
import type { Actor } from 'xstate';
import { API } from '../../contracts/api';
import type { ApiClient } from '../../io/api/client';
import type { presenceMachine, PresenceStatus } from '../../machines/presence.machine';

export type PresenceActor = Actor<typeof presenceMachine>;

/**
 * Writes the person's item whole, lapsing after the server's ttl unless renewed: their status, and
 * whether colleagues see do not disturb. "On a call" is the server's (it follows the calls).
 */
export async function publishPresence(
  api: ApiClient,
  status: PresenceStatus,
  doNotDisturb: boolean,
): Promise<void> {
  await api.call(API.setPresence, undefined, {
    status,
    ...(doNotDisturb ? { doNotDisturb: true } : {}),
  });
}

/**
 * Extends the item's ttl without changing it (colleagues are sent no event); rejects when the item
 * has lapsed (the machine then writes it again in full).
 */
export async function renewPresence(api: ApiClient): Promise<void> {
  await api.call(API.renewPresence);
}

/** Removes the item: the person shows Offline at once. */
export async function withdrawPresence(api: ApiClient): Promise<void> {
  await api.call(API.withdrawPresence);
}

/** The status the person chose (the machine writes it at once and keeps it alive). */
export function setPresenceStatus(presence: PresenceActor, status: PresenceStatus): void {
  presence.send({ type: 'presence.setStatus', status });
}
