import { fromCallback, type EventObject } from 'xstate';
import type { JsonObject, ListPushEvent } from '../../../machines/syncPorts';
import {
  markOf,
  toListItem,
  toMillis,
  tombstoneEventId,
  type SdkContainerLike,
  type SdkItemLike,
} from './convert';
import { listen, type ListenerTarget } from './emitter';

/** The parts of twilio-sync's SyncList the bridge touches; tests pass an EventEmitter fake. */
export interface ListEventSource extends ListenerTarget, SdkContainerLike {
  close(): void;
}

type SdkListItem = SdkItemLike & { readonly index: number };

/**
 * Turns a SyncList's events into `list.*` machine events and returns the cleanup, which removes
 * every listener it added and closes the SDK handle (so the SDK unsubscribes once no handle is
 * left). Emits: list.itemAdded, list.itemUpdated, list.itemRemoved, list.contextUpdated,
 * list.removed, each with the SDK's `isLocal`.
 */
export function bridgeListEvents(
  list: ListEventSource,
  sendBack: (event: ListPushEvent) => void,
): () => void {
  const unlisten = listen(list, {
    itemAdded: (e: { item: SdkListItem; isLocal: boolean }) =>
      sendBack({
        type: 'list.itemAdded',
        item: toListItem(e.item),
        isLocal: e.isLocal,
        container: markOf(list),
      }),
    itemUpdated: (e: { item: SdkListItem; isLocal: boolean; previousItemData?: object }) =>
      sendBack({
        type: 'list.itemUpdated',
        item: toListItem(e.item),
        isLocal: e.isLocal,
        previousData: (e.previousItemData as JsonObject | undefined) ?? null,
        container: markOf(list),
      }),
    itemRemoved: (e: { index: number; isLocal: boolean; previousItemData?: object }) =>
      sendBack({
        type: 'list.itemRemoved',
        index: e.index,
        lastEventId: tombstoneEventId(list, 'syncListImpl', e.index),
        dateUpdated: toMillis(list.dateUpdated),
        isLocal: e.isLocal,
        previousData: (e.previousItemData as JsonObject | undefined) ?? null,
        container: markOf(list),
      }),
    contextUpdated: (e: { context: object; isLocal: boolean }) =>
      sendBack({
        type: 'list.contextUpdated',
        context: e.context as JsonObject,
        lastEventId: null,
        isLocal: e.isLocal,
      }),
    removed: (e: { isLocal: boolean }) => sendBack({ type: 'list.removed', isLocal: e.isLocal }),
  });
  return () => {
    unlisten();
    list.close();
  };
}

/** {@link bridgeListEvents} as an actor: input is the SDK SyncList. */
export const listEventsBridge = fromCallback<EventObject, { list: ListEventSource }>(
  ({ input, sendBack }) => bridgeListEvents(input.list, sendBack),
);
