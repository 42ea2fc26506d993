/**
 * This browser's presence for the signed-in person: reads the server's heartbeat and ttl, then runs
 * the presence machine whenever the `presence` map is open (a new heartbeat each time it opens again,
 * carrying the chosen status over). The item is the server's to write (`/api/presence`: nobody writes
 * a colleague's), and it keeps "on a call" in it from the calls it carries. Signing
 * out withdraws the item, so colleagues see Offline at once; a sign-out that did not happen starts
 * the heartbeat again. A closed browser stops renewing and its item lapses with the ttl.
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
 * The machine's writes are the presence mutators' (through the server, which writes the person's own
 * item with its ttl and keeps their "on a call" as it holds it).
 */
function providedMachine(api: ApiClient, doNotDisturb: () => boolean) {
  return presenceMachine.provide({
    actors: {
      publish: fromPromise<void, PublishInput>(({ input }) =>
        // The person's own do-not-disturb setting, for colleagues to see.
        publishPresence(api, input.item.status, doNotDisturb()),
      ),
      refresh: fromPromise<void, { identity: string; ttlSeconds: number }>(() =>
        renewPresence(api),
      ),
      withdraw: fromPromise<void, { identity: string }>(() => withdrawPresence(api)),
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
    const actor = createActor(providedMachine(api, doNotDisturb), {
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
