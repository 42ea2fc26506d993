/** Narrow reads of the sync client actor, and the one hook the UI uses for the link's health. */
import { useSelector } from '@xstate/react';
import { useEffect, useState } from 'react';
import type { SnapshotFrom } from 'xstate';
import type { syncClientMachine } from '../../machines/syncClient.machine';
import { useSyncAvailability } from './SyncProvider';

type ClientSnapshot = SnapshotFrom<typeof syncClientMachine>;

/** The client's own view of its link, before the UI folds in "was it ever up?". */
export type ClientLink = 'authorizing' | 'connected' | 'disconnected' | 'denied' | 'failed';

export function selectClientLink(snapshot: ClientSnapshot | undefined): ClientLink {
  if (snapshot === undefined || snapshot.matches('authorizing')) return 'authorizing';
  if (snapshot.matches('failed')) return 'failed';
  if (snapshot.matches({ running: { connection: 'connected' } })) return 'connected';
  if (snapshot.matches({ running: { connection: 'denied' } })) return 'denied';
  return 'disconnected';
}

/**
 * What a person should be told about live updates:
 * - `starting`: first connection under way (nothing to say yet);
 * - `live`: connected;
 * - `reconnecting`: it was live and dropped; the SDK retries on its own;
 * - `denied`: the service refused the token;
 * - `unavailable`: no token or no SDK; `retry` asks again.
 */
export type SyncConnection = 'starting' | 'live' | 'reconnecting' | 'denied' | 'unavailable';

export function useSyncConnection(): { connection: SyncConnection; retry: (() => void) | null } {
  const availability = useSyncAvailability();
  const client = availability.runtime?.client;
  const link = useSelector(client, selectClientLink);
  const [wasLive, setWasLive] = useState(false);
  useEffect(() => {
    if (link === 'connected') setWasLive(true);
  }, [link]);
  useEffect(() => setWasLive(false), [client]);

  if (availability.state === 'failed') return { connection: 'unavailable', retry: null };
  if (link === 'failed') {
    return { connection: 'unavailable', retry: () => client?.send({ type: 'client.retry' }) };
  }
  if (link === 'denied') return { connection: 'denied', retry: null };
  if (link === 'connected') return { connection: 'live', retry: null };
  return { connection: wasLive ? 'reconnecting' : 'starting', retry: null };
}
