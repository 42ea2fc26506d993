import { useMemo, useState } from 'react';
import { deleteRule, swapRules, type PlacedRule } from '../../../../app/mutators/admin/forwarding';
import { describeTarget, ruleFromData, WHEN_LABELS } from '../../../../domain/forwarding';
import type { Rule } from '../../../../contracts/records/forwarding';
import { selectListItems, selectListStatus } from '../../../../machines/syncList.selectors';
import { useContainerSelector } from '../../../sync/useSyncContainers';
import { NO_ITEMS, useForwardingList } from './forwarding';
import { Button } from '../form';

/** "When nobody answers after 20 s: forward to Tom". */
function describeRule(
  rule: Rule,
  nameOfPerson: (identity: string) => string,
  nameOfGroup: (id: string) => string,
): string {
  const after = rule.when === 'noAnswer' ? ` after ${rule.after} s` : '';
  return `${WHEN_LABELS[rule.when]}${after}: forward to ${describeTarget(rule.target, nameOfPerson, nameOfGroup)}`;
}

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
  const list = useForwardingList(groupId);
  const status = useContainerSelector(list, selectListStatus, 'opening');
  const items = useContainerSelector(list, selectListItems, NO_ITEMS);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const rules = useMemo(
    () =>
      items
        .flatMap((i): PlacedRule[] => {
          const rule = ruleFromData(i.data);
          return rule ? [{ index: i.index, rule }] : [];
        })
        .sort((a, b) => a.rule.order - b.rule.order || a.index - b.index),
    [items],
  );

  function run(write: (l: NonNullable<typeof list>) => Promise<void>) {
    if (!list || busy) return;
    setBusy(true);
    setProblem(null);
    write(list)
      .catch((e: unknown) => setProblem(e instanceof Error ? e.message : String(e)))
      .finally(() => setBusy(false));
  }

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
            const text = describeRule(r.rule, nameOfPerson, nameOfGroup);
            return (
              <li key={r.index} data-testid="forwarding-rule">
                <span>{text}</span>
                <Button
                  quiet
                  label={`Move up: ${text}`}
                  disabled={i === 0 || busy}
                  onClick={() => run((l) => swapRules(l, r, rules[i - 1]!))}
                >
                  ↑
                </Button>
                <Button
                  quiet
                  label={`Move down: ${text}`}
                  disabled={i === rules.length - 1 || busy}
                  onClick={() => run((l) => swapRules(l, r, rules[i + 1]!))}
                >
                  ↓
                </Button>
                <Button
                  quiet
                  label={`Delete: ${text}`}
                  disabled={busy}
                  onClick={() => run((l) => deleteRule(l, r.index))}
                >
                  Delete
                </Button>
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
