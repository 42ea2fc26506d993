import { useMemo, useState } from 'react';
import { selectListItems, selectListStatus } from '../../../../machines/syncList.selectors';
import { ask } from '../../../../machines/syncCommand';
import { humanMessage, toSyncFailure } from '../../../../contracts/sync-errors';
import type { ListItem } from '../../../../machines/syncPorts';
import { useContainerSelector, useSyncList } from '../../../sync/containers';
import {
  describeTarget,
  ruleFromData,
  ruleToData,
  WHEN_LABELS,
} from '../../../../domain/forwarding';
import type { Rule } from '../../../../contracts/records/forwarding';

const NO_ITEMS: readonly ListItem[] = [];

/**
 * A group's forwarding rules, live, in the order they apply; each can move up or down (buttons, so
 * mouse and keyboard alike) or be deleted.
 */
export function ForwardingRules({
  groupId,
  nameOfPerson,
  nameOfGroup,
}: {
  groupId: string;
  nameOfPerson: (identity: string) => string;
  nameOfGroup: (id: string) => string;
}) {
  const list = useSyncList(`forwarding:${groupId}`, {
    mode: 'open_existing',
    pageSize: 100,
    loadAll: true,
  });
  const status = useContainerSelector(list, selectListStatus, 'opening');
  const items = useContainerSelector(list, selectListItems, NO_ITEMS);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const rules = useMemo(
    () =>
      items
        .flatMap((i) => {
          const rule = ruleFromData(i.data);
          return rule ? [{ index: i.index, rule }] : [];
        })
        .sort((a, b) => a.rule.order - b.rule.order || a.index - b.index),
    [items],
  );

  async function run(work: () => Promise<unknown>) {
    if (!list || busy) return;
    setBusy(true);
    setProblem(null);
    try {
      await work();
    } catch (e) {
      setProblem(`That change was not saved: ${humanMessage(toSyncFailure(e))}`);
    } finally {
      setBusy(false);
    }
  }
  const swap = (a: { index: number; rule: Rule }, b: { index: number; rule: Rule }) =>
    run(async () => {
      if (!list) return;
      // Distinct orders even when older rules shared one.
      const [first, second] =
        a.rule.order === b.rule.order
          ? [a.rule.order + 1, a.rule.order]
          : [b.rule.order, a.rule.order];
      await ask(
        list,
        { type: 'list.set', index: a.index, data: ruleToData({ ...a.rule, order: first }) },
        'list',
      );
      await ask(
        list,
        { type: 'list.set', index: b.index, data: ruleToData({ ...b.rule, order: second }) },
        'list',
      );
    });

  if (status === 'failed')
    return <p className="form-error">The forwarding rules could not be loaded.</p>;
  if (status !== 'ready') return <p className="screen-status">Loading forwarding rules…</p>;
  return (
    <>
      {rules.length === 0 ? (
        <p>No forwarding: calls ring the members only.</p>
      ) : (
        <ol className="forwarding-rules" data-testid="forwarding-rules">
          {rules.map((r, i) => {
            const text = `${WHEN_LABELS[r.rule.when]}${r.rule.when === 'noAnswer' ? ` after ${r.rule.after} s` : ''}: forward to ${describeTarget(r.rule.target, nameOfPerson, nameOfGroup)}`;
            return (
              <li key={r.index} data-testid="forwarding-rule">
                <span>{text}</span>
                <button
                  type="button"
                  className="button button--quiet"
                  aria-label={`Move up: ${text}`}
                  disabled={i === 0 || busy}
                  onClick={() => void swap(r, rules[i - 1]!)}
                >
                  ↑
                </button>
                <button
                  type="button"
                  className="button button--quiet"
                  aria-label={`Move down: ${text}`}
                  disabled={i === rules.length - 1 || busy}
                  onClick={() => void swap(r, rules[i + 1]!)}
                >
                  ↓
                </button>
                <button
                  type="button"
                  className="button button--quiet"
                  aria-label={`Delete: ${text}`}
                  disabled={busy}
                  onClick={() =>
                    void run(async () => {
                      if (list) await ask(list, { type: 'list.remove', index: r.index }, 'list');
                    })
                  }
                >
                  Delete
                </button>
              </li>
            );
          })}
        </ol>
      )}
      {problem !== null && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
    </>
  );
}
