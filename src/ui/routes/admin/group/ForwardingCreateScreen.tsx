import { useEffect, useState, type ReactNode } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { addRule, nextOrder, readGroupTargets } from '../../../../app/mutators/admin/forwarding';
import {
  DEFAULT_FORWARD_AFTER,
  type Rule,
  type Target,
  type When,
} from '../../../../contracts/records/forwarding';
import { validateRule, WHEN_LABELS } from '../../../../domain/forwarding';
import { selectListItems, selectListStatus } from '../../../../machines/syncList.selectors';
import { paths } from '../../../app/paths';
import { Screen } from '../../../components/Screen';
import { useContainerSelector } from '../../../sync/useSyncContainers';
import { useSyncRuntime } from '../../../sync/SyncProvider';
import { AdminForm, useFormKit, type FormFrame, type FormState } from '../form';
import { useGroups, usePeople, type Person } from '../live';
import { useCreateForm } from '../useCreateForm';
import { NO_ITEMS, useForwardingList } from './forwarding';
import './groups.css';

/** Every group's group-targets, read once when the form opens (a team has tens of groups). */
function useGroupTargets(groupIds: readonly string[]): Map<string, string[]> | null {
  const runtime = useSyncRuntime();
  const [targets, setTargets] = useState<Map<string, string[]> | null>(null);
  const key = groupIds.join(',');
  useEffect(() => {
    if (!runtime) return;
    const reading = new AbortController();
    void readGroupTargets(runtime.machines, key === '' ? [] : key.split(','), reading.signal).then(
      (found) => {
        if (!reading.signal.aborted) setTargets(found);
      },
    );
    return () => reading.abort();
  }, [runtime, key]);
  return targets;
}

/** What the form holds: every kind's target, so switching kind loses nothing typed. */
interface Draft {
  when: When;
  after: number;
  kind: Target['kind'];
  number: string;
  identity: string;
  groupId: string;
}

const FIELDS = ['when', 'after', 'target'] as const;
const TARGET_LABELS: Readonly<Record<Target['kind'], string>> = {
  user: 'A person',
  group: 'Another ring group',
  number: 'A phone number',
  voicemail: 'Voicemail',
};

function targetOf(d: Draft): Target {
  if (d.kind === 'number') return { kind: 'number', number: d.number };
  if (d.kind === 'user') return { kind: 'user', identity: d.identity };
  if (d.kind === 'voicemail') return { kind: 'voicemail' };
  return { kind: 'group', groupId: d.groupId };
}

/** /admin/group/{id}/forwarding/create: a rule for when and where this group's calls are forwarded. */
export function Component() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { groups } = useGroups();
  const { people } = usePeople();
  const list = useForwardingList(id);
  const listStatus = useContainerSelector(list, selectListStatus, 'opening');
  const items = useContainerSelector(list, selectListItems, NO_ITEMS);
  const targets = useGroupTargets([...groups.keys()]);
  const group = groups.get(id);
  const ruleOf = (d: Draft): Rule => ({
    when: d.when,
    after: d.after,
    target: targetOf(d),
    order: nextOrder(items),
  });
  const onDone = () => void navigate(paths.adminGroup.build(id));
  const form = useCreateForm({
    initial: (): Draft => ({
      when: 'noAnswer',
      after: DEFAULT_FORWARD_AFTER,
      kind: 'user',
      number: '',
      identity: '',
      groupId: '',
    }),
    validate: (d) =>
      validateRule(
        id,
        ruleOf(d),
        new Set(groups.keys()),
        new Set(people.map((p) => p.identity)),
        (g) => targets?.get(g) ?? [],
      ),
    fields: FIELDS,
    create: list && targets ? (d) => addRule(list, ruleOf(d)) : null,
    notReady: list
      ? 'Still reading the other groups’ forwarding; the rule is added as soon as that is done.'
      : 'Still connecting to the team’s data; the rule is added as soon as that is done.',
    savedMessage: () => 'The forwarding rule was added.',
    onCreated: onDone,
  });

  const frame = { submitLabel: 'Add rule', onCancel: onDone };
  return (
    <Screen title={group ? `New forwarding rule for ${group.name}` : 'New forwarding rule'}>
      {listStatus === 'failed' && (
        <p className="form-error" role="alert">
          This group’s forwarding rules could not be opened (the group may have been deleted).
        </p>
      )}
      <RuleForm form={form} people={people} groups={groups} frame={frame} />
    </Screen>
  );
}

function RuleForm({
  form,
  people,
  groups,
  frame,
}: {
  form: FormState<Draft>;
  people: readonly Person[];
  groups: ReadonlyMap<string, { name: string }>;
  frame: FormFrame;
}) {
  const kit = useFormKit(form);
  const { draft: d, fields, set } = kit;
  /** The target's control for the kind chosen: its label, and a select or the number. */
  const target = (label: string, control: ReactNode) => (
    <>
      <label htmlFor={fields.id('target')}>{label}</label>
      {control}
    </>
  );
  const choose = (field: 'identity' | 'groupId', what: string, options: Array<[string, string]>) =>
    kit.select({
      field: 'target',
      value: d[field],
      onChange: (v) => set(field, v),
      first: <option value="">Choose {what}…</option>,
      options,
    });
  return (
    <AdminForm kit={kit} order={FIELDS} {...frame} cancelWhileBusy markBusy={false}>
      {kit.field(
        'when',
        'When',
        kit.select({
          field: 'when',
          'aria-invalid': undefined,
          value: d.when,
          onChange: (w) => set('when', w as When),
          options: Object.entries(WHEN_LABELS),
        }),
      )}
      {d.when === 'noAnswer' &&
        kit.number('after', 'After (seconds of ringing)', { min: 5, max: 300 })}
      {kit.choices('kind', 'Forward to', TARGET_LABELS, {
        errorOf: 'target',
        children: (
          <>
            {d.kind === 'number' &&
              target(
                'Phone number',
                <input
                  {...fields.control('target')}
                  value={d.number}
                  inputMode="tel"
                  onChange={(e) => set('number', e.currentTarget.value)}
                />,
              )}
            {d.kind === 'user' &&
              target(
                'Person',
                choose(
                  'identity',
                  'a person',
                  people.map((p) => [p.identity, p.name]),
                ),
              )}
            {d.kind === 'group' &&
              target(
                'Ring group',
                choose(
                  'groupId',
                  'a group',
                  [...groups.entries()].map(([g, v]) => [g, v.name]),
                ),
              )}
          </>
        ),
      })}
    </AdminForm>
  );
}
