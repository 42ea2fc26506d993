/**
 * This browser's presence for the signed-in person: reads the server's heartbeat and ttl, then runs
 * the presence machine on the `presence` map whenever the map is open (a new heartbeat each time it
 * opens again, carrying the chosen status over). Signing out withdraws the item, so colleagues see
 * Offline at once; a sign-out that did not happen starts the heartbeat again. A closed browser stops
 * refreshing and its item lapses with the ttl. Nothing sends `presence.setOnCall` on the embedded
 * backend: its server puts `onCall` into every presence write from the calls it carries.
 */
import { createActor, fromPromise, waitFor } from 'xstate';
import { API, type PresenceSettings } from '../contracts/api';
import type { ApiClient } from '../io/api/client';
import {
  presenceMachine,
  type PresenceStatus,
  type PublishInput,
} from '../machines/presence.machine';
import { selectMapStatus } from '../machines/syncMap.selectors';
import type { MapActor } from './mutators/core';
import {
  publishPresence,
  renewPresence,
  withdrawPresence,
  type PresenceActor,
} from './mutators/presence';

export type { PresenceActor } from './mutators/presence';

export interface PresenceHandle {
  /** This browser's presence actor; undefined until the presence map is open. */
  actor: PresenceActor | undefined;
  /** Why presence cannot start (the settings could not be read), or null. */
  problem: string | null;
}

export interface PresenceRunner {
  get(): PresenceHandle;
  /** Signing out: removes the item (resolves once removed, or after `WITHDRAW_WAIT_MS`). */
  withdraw(): Promise<void>;
  /** The person is back after a withdrawal that did not end their session: present again. */
  rejoin(): void;
  /** The person's do-not-disturb changed: the item is written again with it. */
  doNotDisturbChanged(): void;
  stop(): void;
}

/** How long sign-out waits for the item's removal; after that the ttl takes it away anyway. */
export const WITHDRAW_WAIT_MS = 3000;

/**
 * Writes go through the presence map's actor, so they are checked like every other write.
 * `onCall` is the server's (it counts the person's calls: the embedded Sync service stores its own
 * value into every presence write; on Twilio the server writes it), so a write carries the value
 * the service holds at that moment rather than this tab's guess (publishPresence).
 */
function providedMachine(map: MapActor, doNotDisturb: () => boolean) {
  return presenceMachine.provide({
    actors: {
      publish: fromPromise<void, PublishInput>(async ({ input }) => {
        const item = {
          status: input.item.status,
          // The person's own setting, for colleagues to see (written only while it is on).
          ...(doNotDisturb() ? { doNotDisturb: true } : {}),
        };
        await publishPresence(map, input.identity, item, input.ttlSeconds);
      }),
      refresh: fromPromise<void, { identity: string; ttlSeconds: number }>(({ input }) =>
        renewPresence(map, input.identity, input.ttlSeconds),
      ),
      withdraw: fromPromise<void, { identity: string }>(({ input }) =>
        withdrawPresence(map, input.identity),
      ),
    },
  });
}

export function runPresence({
  api,
  identity,
  map,
  onChange,
  doNotDisturb = () => false,
}: {
  api: ApiClient;
  identity: string;
  /** The person's do-not-disturb setting now (mirrored into the item for colleagues). */
  doNotDisturb?: () => boolean;
  /** The `presence` map, held open by the workspace. */
  map: MapActor;
  /** Called whenever {@link PresenceRunner.get} changes. */
  onChange: () => void;
}): PresenceRunner {
  let handle: PresenceHandle = { actor: undefined, problem: null };
  let settings: PresenceSettings | null = null;
  let present = true;
  let stopped = false;
  let remember: { unsubscribe(): void } | null = null;
  // The status chosen in this tab, carried over when the heartbeat starts again (not across reloads).
  let chosen: PresenceStatus = 'available';

  const set = (next: Partial<PresenceHandle>) => {
    handle = { ...handle, ...next };
    onChange();
  };

  function end(): void {
    remember?.unsubscribe();
    remember = null;
    handle.actor?.stop();
    if (handle.actor) set({ actor: undefined });
  }

  function begin(): void {
    if (stopped || !present || settings === null || handle.actor) return;
    if (selectMapStatus(map.getSnapshot()) !== 'ready') return;
    const actor = createActor(providedMachine(map, doNotDisturb), {
      systemId: 'presenceHeartbeat',
      input: {
        identity,
        ttlSeconds: settings.ttlSeconds,
        heartbeatMs: settings.heartbeatSeconds * 1000,
        status: chosen,
      },
    });
    remember = actor.subscribe((s) => {
      chosen = s.context.status;
    });
    actor.start();
    set({ actor });
  }

  // A map that is open again (after failing, say) gets a new heartbeat; one that closed, none.
  let ready = selectMapStatus(map.getSnapshot()) === 'ready';
  const watch = map.subscribe((snapshot) => {
    const now = selectMapStatus(snapshot) === 'ready';
    if (now === ready) return;
    ready = now;
    if (now) begin();
    else end();
  });

  api
    .call(API.presenceSettings, undefined, undefined, {
      unreadable: 'The server sent unusable presence settings',
    })
    .then(
      (value) => {
        settings = value;
        begin();
      },
      (error: unknown) => {
        if (stopped) return;
        set({
          problem: `Your status cannot be shared: ${error instanceof Error ? error.message : String(error)}`,
        });
      },
    );

  return {
    get: () => handle,
    async withdraw() {
      present = false;
      const actor = handle.actor;
      if (!actor || actor.getSnapshot().status !== 'active') return;
      actor.send({ type: 'presence.withdraw' });
      await waitFor(actor, (s) => s.status !== 'active', { timeout: WITHDRAW_WAIT_MS }).catch(
        () => undefined,
      );
    },
    doNotDisturbChanged() {
      const actor = handle.actor;
      if (!actor || actor.getSnapshot().status !== 'active') return;
      // Writing the status again writes the whole item, do-not-disturb included.
      actor.send({ type: 'presence.setStatus', status: actor.getSnapshot().context.status });
    },
    rejoin() {
      if (stopped || present) return;
      present = true;
      end();
      begin();
    },
    stop() {
      stopped = true;
      watch.unsubscribe();
      end();
    },
  };
}
