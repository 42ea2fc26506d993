import { fromCallback, type EventObject } from 'xstate';
import type { JsonObject, MapPushEvent } from '../../../machines/syncPorts';
import {
  markOf,
  toMapItem,
  toMillis,
  tombstoneEventId,
  type SdkContainerLike,
  type SdkItemLike,
} from './convert';
import { listen, type ListenerTarget } from './emitter';

/** The parts of twilio-sync's SyncMap the bridge touches; tests pass an EventEmitter fake. */
export interface MapEventSource extends ListenerTarget, SdkContainerLike {
  close(): void;
}

type SdkMapItem = SdkItemLike & { readonly key: string };

/**
 * Turns a SyncMap's events into `map.*` machine events and returns the cleanup, which removes
 * every listener it added and closes the SDK handle. Emits: map.itemAdded, map.itemUpdated,
 * map.itemRemoved, map.removed, each with the SDK's `isLocal`.
 */
export function bridgeMapEvents(
  map: MapEventSource,
  sendBack: (event: MapPushEvent) => void,
): () => void {
  const unlisten = listen(map, {
    itemAdded: (e: { item: SdkMapItem; isLocal: boolean }) =>
      sendBack({
        type: 'map.itemAdded',
        item: toMapItem(e.item),
        isLocal: e.isLocal,
        container: markOf(map),
      }),
    itemUpdated: (e: { item: SdkMapItem; isLocal: boolean; previousItemData?: object }) =>
      sendBack({
        type: 'map.itemUpdated',
        item: toMapItem(e.item),
        isLocal: e.isLocal,
        previousData: (e.previousItemData as JsonObject | undefined) ?? null,
        container: markOf(map),
      }),
    itemRemoved: (e: { key: string; isLocal: boolean; previousItemData?: object }) =>
      sendBack({
        type: 'map.itemRemoved',
        key: e.key,
        lastEventId: tombstoneEventId(map, 'syncMapImpl', e.key),
        dateUpdated: toMillis(map.dateUpdated),
        isLocal: e.isLocal,
        previousData: (e.previousItemData as JsonObject | undefined) ?? null,
        container: markOf(map),
      }),
    removed: (e: { isLocal: boolean }) => sendBack({ type: 'map.removed', isLocal: e.isLocal }),
  });
  return () => {
    unlisten();
    map.close();
  };
}

/** {@link bridgeMapEvents} as an actor: input is the SDK SyncMap. */
export const mapEventsBridge = fromCallback<EventObject, { map: MapEventSource }>(
  ({ input, sendBack }) => bridgeMapEvents(input.map, sendBack),
);
