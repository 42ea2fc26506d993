/**
 * A ring group's forwarding rules (the `forwarding:{groupId}` list): add one after the others,
 * swap two (move one up or down), delete one. Each rule is checked against its contract first.
 */
import { FORWARDING } from '../../../contracts/objects';
import type { Rule } from '../../../contracts/records/forwarding';
import { ruleFromData, ruleToData } from '../../../domain/forwarding';
import { selectListItems } from '../../../machines/syncList.selectors';
import type { ListItem } from '../../../machines/syncPorts';
import { waitFor } from 'xstate';
import { pushItem, removeListItem, setListItem, type ListActor } from '../core';
import { explain } from './failure';
import { openList, type ContainerMachines } from './objects';

const SAVE = 'The rule could not be saved';
const CHANGE = 'That change was not saved';

/** The order a rule added after `items` takes: after every rule there. */
export function nextOrder(items: readonly ListItem[]): number {
  return items.reduce((m, i) => Math.max(m, ruleFromData(i.data)?.order ?? 0), 0) + 1;
}

/** Adds `rule` to a group's open forwarding list. */
export async function addRule(list: ListActor, rule: Rule): Promise<void> {
  try {
    await pushItem(list, FORWARDING.record, ruleToData(rule));
  } catch (error) {
    throw explain(SAVE, error);
  }
}

export interface PlacedRule {
  /** The rule's index in the list. */
  index: number;
  rule: Rule;
}

/** Swaps the places of two rules (`a` takes `b`'s order and the other way round). */
export async function swapRules(list: ListActor, a: PlacedRule, b: PlacedRule): Promise<void> {
  // Distinct orders even when older rules shared one.
  const [first, second] =
    a.rule.order === b.rule.order ? [a.rule.order + 1, a.rule.order] : [b.rule.order, a.rule.order];
  try {
    await setListItem(list, FORWARDING.record, a.index, ruleToData({ ...a.rule, order: first }));
    await setListItem(list, FORWARDING.record, b.index, ruleToData({ ...b.rule, order: second }));
  } catch (error) {
    throw explain(CHANGE, error);
  }
}

/** Deletes the rule at `index`. */
export async function deleteRule(list: ListActor, index: number): Promise<void> {
  try {
    await removeListItem(list, index);
  } catch (error) {
    throw explain(CHANGE, error);
  }
}

/**
 * The groups each of `groupIds` forwards to, read once (the loop check a new rule must pass): each
 * list is opened through its machine, its first page read, and closed. A list that cannot be read
 * counts as forwarding nowhere. `signal` stops the reading between lists (the form went away).
 */
export async function readGroupTargets(
  machines: ContainerMachines,
  groupIds: readonly string[],
  signal?: AbortSignal,
): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  for (const id of groupIds) {
    if (signal?.aborted) break;
    try {
      const list = await openList(machines, {
        id: FORWARDING.name(id),
        mode: 'open_existing',
        pageSize: 100,
      });
      try {
        const ready = await waitFor(
          list,
          (s) => s.matches({ ready: 'idle' }) || !s.matches('ready'),
          {
            timeout: Infinity,
          },
        );
        found.set(
          id,
          selectListItems(ready).flatMap((i) => {
            const r = ruleFromData(i.data);
            return r?.target.kind === 'group' ? [r.target.groupId] : [];
          }),
        );
      } finally {
        list.stop();
      }
    } catch {
      found.set(id, []);
    }
  }
  return found;
}
