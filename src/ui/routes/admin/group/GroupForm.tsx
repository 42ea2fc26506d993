import { STRATEGY_LABELS } from '../../../../domain/group';
import {
  RING_TIMEOUT_MAX,
  RING_TIMEOUT_MIN,
  type Group,
} from '../../../../contracts/records/group';
import { AdminForm, Button, useFormKit, type FormFrame, type FormState } from '../form';
import type { Person } from '../live';

/** The fields in the order they are shown (the first at fault takes focus). */
export const GROUP_FIELDS = ['name', 'number', 'members', 'strategy', 'ringTimeout'] as const;

/**
 * The ring group's fields, shared by create and edit. Members ring in the order listed; the arrows
 * move one up or down (keyboard reachable).
 */
export function GroupForm({
  form,
  people,
  frame,
}: {
  form: FormState<Group>;
  people: readonly Person[];
  frame: FormFrame;
}) {
  const kit = useFormKit(form);
  const { draft: value, fields, set } = kit;
  const nameOf = (identity: string) =>
    people.find((p) => p.identity === identity)?.name ?? identity;
  const candidates = people.filter((p) => !value.members.includes(p.identity));

  return (
    <AdminForm kit={kit} order={GROUP_FIELDS} {...frame}>
      {kit.text('name', 'Name', { maxLength: 200 })}
      {kit.text('number', 'Number or extension', { inputMode: 'tel' })}
      <fieldset className="field group-form__members">
        <legend id={fields.id('members-legend')}>Members</legend>
        <Members
          members={value.members}
          nameOf={nameOf}
          labelledBy={fields.id('members-legend')}
          onChange={(members) => set('members', members)}
        />
        <label htmlFor={fields.id('members')}>Add a member</label>
        {kit.select({
          field: 'members',
          value: '',
          disabled: candidates.length === 0,
          onChange: (identity) => {
            if (identity) set('members', [...value.members, identity]);
          },
          first: (
            <option value="">
              {candidates.length === 0 ? 'Everyone is a member' : 'Choose a person…'}
            </option>
          ),
          options: candidates.map((p) => [p.identity, `${p.name} (${p.identity})`]),
        })}
        {fields.error('members')}
      </fieldset>
      {kit.choices('strategy', 'Members ring', STRATEGY_LABELS)}
      {kit.number('ringTimeout', 'Ring for (seconds)', {
        min: RING_TIMEOUT_MIN,
        max: RING_TIMEOUT_MAX,
      })}
    </AdminForm>
  );
}

/** The members in ringing order, each movable up or down and removable. */
function Members({
  members,
  nameOf,
  labelledBy,
  onChange,
}: {
  members: readonly string[];
  nameOf: (identity: string) => string;
  labelledBy: string;
  onChange: (members: string[]) => void;
}) {
  if (members.length === 0)
    return <p className="group-form__hint">Nobody yet: add the people who answer this group.</p>;
  const move = (index: number, by: -1 | 1) => {
    const next = [...members];
    const [m] = next.splice(index, 1);
    if (m === undefined) return;
    next.splice(index + by, 0, m);
    onChange(next);
  };
  return (
    <ol aria-labelledby={labelledBy}>
      {members.map((m, i) => (
        <li key={m}>
          <span>{nameOf(m)}</span>
          <Button
            quiet
            label={`Move ${nameOf(m)} up`}
            disabled={i === 0}
            onClick={() => move(i, -1)}
          >
            ↑
          </Button>
          <Button
            quiet
            label={`Move ${nameOf(m)} down`}
            disabled={i === members.length - 1}
            onClick={() => move(i, 1)}
          >
            ↓
          </Button>
          <Button
            quiet
            label={`Remove ${nameOf(m)}`}
            onClick={() => onChange(members.filter((x) => x !== m))}
          >
            Remove
          </Button>
        </li>
      ))}
    </ol>
  );
}
