/**
 * How pushed events apply to a container (seed 4): the paged kinds' item events (added, updated,
 * removed) apply when newer than what is known for their key, and each kind's own pushed events by
 * their rule; each becomes one targetless transition on `ready` with its named guard (shown in the
 * chart). Written once for every kind; syncContainer.factory.ts puts them on the machine.
 */
import { assign, enqueueActions, type EventObject } from 'xstate';
import type { ContainerKind, ContainerMark, ContainerMeta } from './syncPorts';
import { advanceMetaByEvent } from './syncContainer';
import type {
  ContainerContext,
  ContainerSpec,
  KindTypes,
  PagedExtra,
  PushRule,
} from './syncContainer.types';

export type Item = { lastEventId: number; dateUpdated: number };
export type PagedContext = PagedExtra<unknown, Item> & { meta: ContainerMeta | null };
type ItemEvent = { item: Item; container?: ContainerMark };
type ItemRemoved = {
  lastEventId: number | null;
  dateUpdated: number | null;
  container?: ContainerMark;
};

/** Stores an item if it is newer than the one known for its key, advancing the descriptor. */
function writeItem(
  context: PagedContext,
  keyOf: (item: Item) => unknown,
  item: Item,
  mark?: ContainerMark,
) {
  const items = context.items.setIfNewer(keyOf(item), item, item.lastEventId);
  const meta =
    context.meta && advanceMetaByEvent(context.meta, mark, item.lastEventId, item.dateUpdated);
  return { items, meta };
}

/** Item events of the paged kinds apply when newer than what is known for their key (seed 4). */
function itemRules(
  kind: ContainerKind,
  keyOf: (item: Item) => unknown,
  keyOfRemoved: (event: ItemRemoved) => unknown,
) {
  const item: PushRule<PagedContext, ItemEvent> = {
    guard: {
      name: 'isNewItem',
      test: (context, event) => context.items.isNewer(keyOf(event.item), event.item.lastEventId),
    },
    apply: (context, event) => writeItem(context, keyOf, event.item, event.container),
  };
  const removal: PushRule<PagedContext, ItemRemoved> = {
    guard: {
      name: 'isNewRemoval',
      test: (context, event) =>
        context.items.has(keyOfRemoved(event)) &&
        (event.lastEventId === null ||
          context.items.isNewer(keyOfRemoved(event), event.lastEventId)),
    },
    apply: (context, event) => ({
      items: context.items.remove(keyOfRemoved(event), event.lastEventId),
      meta:
        context.meta &&
        advanceMetaByEvent(context.meta, event.container, event.lastEventId, event.dateUpdated),
    }),
  };
  return {
    [`${kind}.itemAdded`]: item,
    [`${kind}.itemUpdated`]: item,
    [`${kind}.itemRemoved`]: removal,
  } as Record<string, PushRule<never, never>>;
}

type Context = ContainerContext<KindTypes>;
export type Args = { context: Context; event: EventObject };

/**
 * The transitions (and their guards) that apply `spec`'s pushed events, with how its items are
 * keyed and how a write's answer is applied like a pushed version.
 */
export function pushedTransitions(spec: ContainerSpec<KindTypes>) {
  const { kind, paged } = spec;
  const keyOf = paged?.keyOf as unknown as (item: Item) => unknown;
  const rules: Record<string, PushRule<never, never> | undefined> = {
    ...(paged &&
      itemRules(kind, keyOf, paged.removedKey as unknown as (event: ItemRemoved) => unknown)),
    ...(spec.pushed as Record<string, PushRule<never, never>> | undefined),
  };
  const applyWrite =
    spec.applyWrite ??
    ((context: Context, item: Item) => writeItem(context as Context & PagedContext, keyOf, item));
  const guards: Record<string, (args: Args, params: unknown) => boolean> = {};
  const on: Record<string, object> = {};
  for (const [type, rule] of Object.entries(rules)) {
    if (!rule) continue;
    const apply = ({ context, event }: Args) => rule.apply(context as never, event as never);
    if (rule.guard) {
      const { test } = rule.guard;
      guards[rule.guard.name] = ({ context, event }) => test(context as never, event as never);
    }
    on[type] = {
      ...(rule.guard ? { guard: rule.guard.name } : {}),
      actions: rule.emit
        ? enqueueActions(({ context, event, enqueue }) => {
            enqueue.assign(apply({ context: context as Context, event }));
            enqueue.emit(event);
          })
        : assign(apply),
    };
  }
  return { keyOf, applyWrite, guards, on };
}
