import { useEffect, useRef, useState } from 'react';
import { createActor, fromPromise, type Actor } from 'xstate';
import {
  presenceMachine,
  type PresenceStatus,
  type PublishInput,
} from '../../machines/presence.machine';
import { ask } from '../../machines/syncCommand';
import { selectMapItem, selectMapStatus } from '../../machines/syncMap.selectors';
import type { MapActor } from '../sync/containers';
import type { PresenceSettings } from './settings';

export type PresenceActor = Actor<typeof presenceMachine>;

/**
 * Writes go through the presence map's actor, so they are validated like every other command.
 * `onCall` is the server's (it counts the person's calls and stores its own value into every
 * presence write), so a write carries the value the map holds now rather than this tab's guess.
 */
function providedMachine(map: MapActor) {
  return presenceMachine.provide({
    actors: {
      publish: fromPromise<void, PublishInput>(async ({ input }) => {
        const current = selectMapItem(input.identity)(map.getSnapshot())?.data;
        const data = { ...input.item, onCall: current?.onCall === true };
        await ask(
          map,
          { type: 'map.set', key: input.identity, data, ttl: input.ttlSeconds },
          'map',
        );
      }),
      refresh: fromPromise<void, { identity: string; ttlSeconds: number }>(async ({ input }) => {
        await ask(
          map,
          { type: 'map.setItemTtl', key: input.identity, ttl: input.ttlSeconds },
          'map',
        );
      }),
      withdraw: fromPromise<void, { identity: string }>(async ({ input }) => {
        await ask(map, { type: 'map.remove', key: input.identity }, 'map');
      }),
    },
  });
}

/**
 * Runs this browser's presence heartbeat while the `presence` map is open. A new map actor (a
 * reconnected runtime), or a new `round` (the person is back after a withdrawal that did not end
 * their session), gets a new heartbeat, which carries the chosen status over.
 */
export function usePresenceActor(
  map: MapActor | undefined,
  identity: string | null,
  settings: PresenceSettings | null,
  round = 0,
): PresenceActor | undefined {
  const [ready, setReady] = useState(false);
  const [actor, setActor] = useState<PresenceActor>();
  // The status chosen in this tab, carried over when the heartbeat restarts (not across reloads).
  const chosen = useRef<{ identity: string | null; status: PresenceStatus }>({
    identity,
    status: 'available',
  });
  if (chosen.current.identity !== identity) chosen.current = { identity, status: 'available' };

  useEffect(() => {
    if (map === undefined) {
      setReady(false);
      return;
    }
    const check = () => setReady(selectMapStatus(map.getSnapshot()) === 'ready');
    const subscription = map.subscribe(check);
    check();
    return () => subscription.unsubscribe();
  }, [map]);

  useEffect(() => {
    if (map === undefined || !ready || identity === null || settings === null) return;
    const created = createActor(providedMachine(map), {
      input: {
        identity,
        ttlSeconds: settings.ttlSeconds,
        heartbeatMs: settings.heartbeatSeconds * 1000,
        status: chosen.current.status,
      },
    });
    const remember = created.subscribe((s) => {
      chosen.current.status = s.context.status;
    });
    created.start();
    setActor(created);
    return () => {
      remember.unsubscribe();
      created.stop();
      setActor(undefined);
    };
  }, [map, ready, identity, settings, round]);

  return actor;
}
