import type { ReactNode } from 'react';
import { STRATEGY_LABELS } from '../../../../domain/group';
import {
  DEFAULT_NO_ANSWER_TIMEOUT,
  NO_ANSWER_TIMEOUT_MAX,
  NO_ANSWER_TIMEOUT_MIN,
  RING_TIMEOUT_MAX,
  RING_TIMEOUT_MIN,
  type Group,
} from '../../../../contracts/records/group';
import {
  AdminForm,
  Button,
  useFormKit,
  type Fields,
  type FormFrame,
  type FormState,
} from '../form';
import { personLabel, type Person } from '../live';

/** The fields in the order they are shown (the first at fault takes focus). */
export const GROUP_FIELDS = [
  'name',
  'number',
  'members',
  'strategy',
  'ringTimeout',
  'noAnswerTimeout',
] as const;

/** More of the form after the group's own fields (the create form's business hours). */
export interface GroupFormExtra {
  /** Its fields in order, after {@link GROUP_FIELDS}. */
  order: readonly string[];
  render: (fields: Fields) => ReactNode;
}

/**
 * The ring group's fields, shared by create and edit. Members ring in the order listed; the arrows
 * move one up or down (keyboard reachable).
 */
export function GroupForm({
  form,
  people,
  frame,
  extra,
}: {
  form: FormState<Group>;
  people: readonly Person[];
  frame: FormFrame;
  extra?: GroupFormExtra;
}) {
  const kit = useFormKit(form);
  const { draft: value, fields, set } = kit;
  const nameOf = (identity: string) =>
    people.find((p) => p.identity === identity)?.name ?? identity;
  const candidates = people.filter((p) => !value.members.includes(p.identity));

  return (
    <AdminForm kit={kit} order={[...GROUP_FIELDS, ...(extra?.order ?? [])]} {...frame}>
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
          options: candidates.map((p) => [p.identity, personLabel(p, people)]),
        })}
        {fields.error('members')}
      </fieldset>
      {kit.choices('strategy', 'Members ring', STRATEGY_LABELS)}
      {kit.field(
        'ringTimeout',
        'Ring each member for (seconds)',
        <input
          {...fields.control('ringTimeout', fields.id('ringTimeout-hint'))}
          type="number"
          min={RING_TIMEOUT_MIN}
          max={RING_TIMEOUT_MAX}
          value={Number.isNaN(value.ringTimeout) ? '' : value.ringTimeout}
          onChange={(e) => set('ringTimeout', e.currentTarget.valueAsNumber)}
        />,
        <p id={fields.id('ringTimeout-hint')} className="group-form__hint">
          In order, each member rings in turn for this long; all at once, everyone together.
        </p>,
      )}
      {kit.field(
        'noAnswerTimeout',
        'No answer after (seconds)',
        <input
          {...fields.control('noAnswerTimeout', fields.id('noAnswerTimeout-hint'))}
          type="number"
          min={NO_ANSWER_TIMEOUT_MIN}
          max={NO_ANSWER_TIMEOUT_MAX}
          value={
            Number.isNaN(value.noAnswerTimeout)
              ? ''
              : (value.noAnswerTimeout ?? DEFAULT_NO_ANSWER_TIMEOUT)
          }
          onChange={(e) => set('noAnswerTimeout', e.currentTarget.valueAsNumber)}
        />,
        <p id={fields.id('noAnswerTimeout-hint')} className="group-form__hint">
          Then the no-answer forwarding rule applies, or voicemail. It never comes before every
          member has rung: {noAnswerNote(value)}
        </p>,
      )}
      <p className="group-form__hint" data-testid="group-who-rings">
        Only members who are available ring: anyone away, on do not disturb, on a call or offline is
        skipped.
      </p>
      {extra?.render(fields)}
    </AdminForm>
  );
}

/** When the no-answer rule applies with these settings, in words. */
function noAnswerNote(group: Group): string {
  const ring = Number.isFinite(group.ringTimeout) ? group.ringTimeout : 0;
  const wait = group.noAnswerTimeout ?? DEFAULT_NO_ANSWER_TIMEOUT;
  const n = group.members.length;
  if (group.strategy !== 'sequential' || n < 2 || !Number.isFinite(wait)) return 'as set here.';
  const turns = n * ring;
  return turns > wait
    ? `in order, with ${n} members ringing ${ring} s each, that is after ${turns} s.`
    : `in order, the last member rings on until ${wait} s.`;
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
