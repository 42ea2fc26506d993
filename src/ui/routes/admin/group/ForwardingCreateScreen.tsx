import { useEffect, useId, useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { selectListItems, selectListStatus } from '../../../../machines/syncList.selectors';
import { ask } from '../../../../machines/syncCommand';
import { openWithSdk } from '../../../../io/sync/client';
import { humanMessage, toSyncFailure } from '../../../../contracts/sync-errors';
import type { ListItem, ListPort } from '../../../../machines/syncPorts';
import { useToastActor } from '../../../app/actors';
import { paths } from '../../../app/paths';
import { Screen } from '../../../components/Screen';
import { useContainerSelector, useSyncList } from '../../../sync/containers';
import { useSyncRuntime } from '../../../sync/SyncProvider';
import {
  ruleFromData,
  ruleToData,
  validateRule,
  WHEN_LABELS,
  type RuleErrors,
} from '../../../../domain/forwarding';
import './groups.css';
import { useGroups, usePeople } from './useGroups';
import type { Rule, Target, When } from '../../../../contracts/records/forwarding';

const NO_ITEMS: readonly ListItem[] = [];

/** Every group's group-targets, read once when the form opens (a team has tens of groups). */
function useGroupTargets(groupIds: readonly string[]): Map<string, string[]> | null {
  const runtime = useSyncRuntime();
  const [targets, setTargets] = useState<Map<string, string[]> | null>(null);
  const key = groupIds.join(',');
  useEffect(() => {
    if (!runtime) return;
    let live = true;
    void (async () => {
      const client = await runtime.sdkClient();
      const found = new Map<string, string[]>();
      for (const id of key === '' ? [] : key.split(',')) {
        try {
          const opened = await openWithSdk(
            client,
            { kind: 'list', id: `forwarding:${id}`, mode: 'open_existing' },
            'open_existing',
          );
          const page = await (opened.port as ListPort).getItems({ pageSize: 100 });
          (opened.source as { close?: () => void } | null)?.close?.();
          found.set(
            id,
            page.items.flatMap((i) => {
              const r = ruleFromData(i.data);
              return r?.target.kind === 'group' ? [r.target.groupId] : [];
            }),
          );
        } catch {
          found.set(id, []);
        }
      }
      if (live) setTargets(found);
    })();
    return () => {
      live = false;
    };
  }, [runtime, key]);
  return targets;
}

/** /admin/group/{id}/forwarding/create: a rule for when and where this group's calls are forwarded. */
export function Component() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const toast = useToastActor();
  const uid = useId();
  const { groups } = useGroups();
  const { people } = usePeople();
  const list = useSyncList(`forwarding:${id}`, {
    mode: 'open_existing',
    pageSize: 100,
    loadAll: true,
  });
  const listStatus = useContainerSelector(list, selectListStatus, 'opening');
  const items = useContainerSelector(list, selectListItems, NO_ITEMS);
  const targets = useGroupTargets([...groups.keys()]);
  const [when, setWhen] = useState<When>('noAnswer');
  const [after, setAfter] = useState(20);
  const [kind, setKind] = useState<Target['kind']>('user');
  const [number, setNumber] = useState('');
  const [identity, setIdentity] = useState('');
  const [groupId, setGroupId] = useState('');
  const [errors, setErrors] = useState<RuleErrors>({});
  const [busy, setBusy] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const group = groups.get(id);

  const target: Target =
    kind === 'number'
      ? { kind, number }
      : kind === 'user'
        ? { kind, identity }
        : kind === 'voicemail'
          ? { kind }
          : { kind, groupId };

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy || !list) return;
    if (targets === null) {
      setFormError('Still reading the other groups’ forwarding; try again in a moment.');
      return;
    }
    const order = items.reduce((m, i) => Math.max(m, ruleFromData(i.data)?.order ?? 0), 0) + 1;
    const rule: Rule = { when, after, target, order };
    const found = validateRule(
      id,
      rule,
      new Set(groups.keys()),
      new Set(people.map((p) => p.identity)),
      (g) => targets.get(g) ?? [],
    );
    setErrors(found);
    const first = (['when', 'after', 'target'] as const).find((f) => found[f] !== undefined);
    if (first) {
      document.getElementById(`${uid}-${first}`)?.focus();
      return;
    }
    setBusy(true);
    setFormError(null);
    try {
      await ask(list, { type: 'list.push', data: ruleToData(rule) }, 'list');
      toast.send({
        type: 'toast.show',
        message: 'The forwarding rule was added.',
        toastType: 'success',
      });
      void navigate(paths.adminGroup.build(id));
    } catch (e) {
      const f = toSyncFailure(e);
      setFormError(`The rule could not be saved: ${humanMessage(f)}`);
      setBusy(false);
    }
  }

  const err = (f: keyof RuleErrors) =>
    errors[f] === undefined ? null : (
      <p id={`${uid}-${f}-error`} className="field__error">
        {errors[f]}
      </p>
    );
  const described = (f: keyof RuleErrors) => (errors[f] ? `${uid}-${f}-error` : undefined);

  return (
    <Screen title={group ? `New forwarding rule for ${group.name}` : 'New forwarding rule'}>
      {listStatus === 'failed' && (
        <p className="form-error" role="alert">
          This group’s forwarding rules could not be opened (the group may have been deleted).
        </p>
      )}
      <form className="group-form" noValidate onSubmit={(e) => void submit(e)}>
        <div className="field">
          <label htmlFor={`${uid}-when`}>When</label>
          <select
            id={`${uid}-when`}
            value={when}
            aria-describedby={described('when')}
            onChange={(e) => setWhen(e.currentTarget.value as When)}
          >
            {(Object.keys(WHEN_LABELS) as When[]).map((w) => (
              <option key={w} value={w}>
                {WHEN_LABELS[w]}
              </option>
            ))}
          </select>
          {err('when')}
        </div>
        {when === 'noAnswer' && (
          <div className="field">
            <label htmlFor={`${uid}-after`}>After (seconds of ringing)</label>
            <input
              id={`${uid}-after`}
              type="number"
              min={5}
              max={300}
              value={Number.isNaN(after) ? '' : after}
              aria-invalid={errors.after ? true : undefined}
              aria-describedby={described('after')}
              onChange={(e) => setAfter(e.currentTarget.valueAsNumber)}
            />
            {err('after')}
          </div>
        )}
        <fieldset className="field">
          <legend>Forward to</legend>
          {(
            [
              ['user', 'A person'],
              ['group', 'Another ring group'],
              ['number', 'A phone number'],
              ['voicemail', 'Voicemail'],
            ] as const
          ).map(([k, label]) => (
            <label key={k} className="group-form__choice">
              <input
                type="radio"
                name={`${uid}-kind`}
                checked={kind === k}
                onChange={() => setKind(k)}
              />
              {label}
            </label>
          ))}
          {kind === 'number' && (
            <>
              <label htmlFor={`${uid}-target`}>Phone number</label>
              <input
                id={`${uid}-target`}
                value={number}
                inputMode="tel"
                aria-invalid={errors.target ? true : undefined}
                aria-describedby={described('target')}
                onChange={(e) => setNumber(e.currentTarget.value)}
              />
            </>
          )}
          {kind === 'user' && (
            <>
              <label htmlFor={`${uid}-target`}>Person</label>
              <select
                id={`${uid}-target`}
                value={identity}
                aria-invalid={errors.target ? true : undefined}
                aria-describedby={described('target')}
                onChange={(e) => setIdentity(e.currentTarget.value)}
              >
                <option value="">Choose a person…</option>
                {people.map((p) => (
                  <option key={p.identity} value={p.identity}>
                    {p.name}
                  </option>
                ))}
              </select>
            </>
          )}
          {kind === 'group' && (
            <>
              <label htmlFor={`${uid}-target`}>Ring group</label>
              <select
                id={`${uid}-target`}
                value={groupId}
                aria-invalid={errors.target ? true : undefined}
                aria-describedby={described('target')}
                onChange={(e) => setGroupId(e.currentTarget.value)}
              >
                <option value="">Choose a group…</option>
                {[...groups.entries()].map(([g, v]) => (
                  <option key={g} value={g}>
                    {v.name}
                  </option>
                ))}
              </select>
            </>
          )}
          {err('target')}
        </fieldset>
        {formError !== null && (
          <p className="form-error" role="alert">
            {formError}
          </p>
        )}
        <div className="group-form__actions">
          <button type="submit" className="button button--primary" disabled={busy}>
            {busy ? 'Saving…' : 'Add rule'}
          </button>
          <button
            type="button"
            className="button"
            onClick={() => void navigate(paths.adminGroup.build(id))}
          >
            Cancel
          </button>
        </div>
      </form>
    </Screen>
  );
}
