import { useId, type FormEvent } from 'react';
import { STRATEGY_LABELS, type GroupErrors } from '../../../../domain/group';
import {
  RING_TIMEOUT_MAX,
  RING_TIMEOUT_MIN,
  type Group,
  type Strategy,
} from '../../../../contracts/records/group';

export interface Person {
  identity: string;
  name: string;
  /** Their extension, when the directory has one. */
  extension?: string | null;
}

const FIELD_ORDER = ['name', 'number', 'members', 'strategy', 'ringTimeout'] as const;

/**
 * The ring group's fields, shared by create and edit. Errors sit beside their fields (and are tied to
 * them for screen readers); on a refused submit the first invalid field takes focus. Members ring in
 * the order listed; the arrows move one up or down (keyboard reachable).
 */
export function GroupForm({
  value,
  errors,
  people,
  busy,
  submitLabel,
  formError,
  onChange,
  onSubmit,
  onCancel,
}: {
  value: Group;
  errors: GroupErrors;
  people: readonly Person[];
  busy: boolean;
  submitLabel: string;
  formError: string | null;
  onChange: (group: Group) => void;
  /** Returns the errors found; the form focuses the first. */
  onSubmit: () => GroupErrors;
  onCancel: () => void;
}) {
  const uid = useId();
  const id = (field: string) => `${uid}-${field}`;
  const set = <K extends keyof Group>(field: K, v: Group[K]) => onChange({ ...value, [field]: v });
  const nameOf = (identity: string) =>
    people.find((p) => p.identity === identity)?.name ?? identity;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    const found = onSubmit();
    const first = FIELD_ORDER.find((f) => found[f] !== undefined);
    if (first) document.getElementById(id(first))?.focus();
  }

  const describedBy = (field: keyof Group) =>
    errors[field] === undefined ? undefined : `${id(field)}-error`;
  const error = (field: keyof Group) =>
    errors[field] === undefined ? null : (
      <p id={`${id(field)}-error`} className="field__error">
        {errors[field]}
      </p>
    );

  const move = (index: number, by: -1 | 1) => {
    const members = [...value.members];
    const [m] = members.splice(index, 1);
    if (m === undefined) return;
    members.splice(index + by, 0, m);
    set('members', members);
  };
  const candidates = people.filter((p) => !value.members.includes(p.identity));

  return (
    <form className="group-form" noValidate onSubmit={submit} aria-busy={busy}>
      <div className="field">
        <label htmlFor={id('name')}>Name</label>
        <input
          id={id('name')}
          value={value.name}
          maxLength={200}
          aria-invalid={errors.name ? true : undefined}
          aria-describedby={describedBy('name')}
          onChange={(e) => set('name', e.currentTarget.value)}
        />
        {error('name')}
      </div>
      <div className="field">
        <label htmlFor={id('number')}>Number or extension</label>
        <input
          id={id('number')}
          value={value.number}
          inputMode="tel"
          aria-invalid={errors.number ? true : undefined}
          aria-describedby={describedBy('number')}
          onChange={(e) => set('number', e.currentTarget.value)}
        />
        {error('number')}
      </div>
      <fieldset className="field group-form__members">
        <legend id={id('members-legend')}>Members</legend>
        {value.members.length === 0 ? (
          <p className="group-form__hint">Nobody yet: add the people who answer this group.</p>
        ) : (
          <ol aria-labelledby={id('members-legend')}>
            {value.members.map((m, i) => (
              <li key={m}>
                <span>{nameOf(m)}</span>
                <button
                  type="button"
                  className="button button--quiet"
                  aria-label={`Move ${nameOf(m)} up`}
                  disabled={i === 0}
                  onClick={() => move(i, -1)}
                >
                  ↑
                </button>
                <button
                  type="button"
                  className="button button--quiet"
                  aria-label={`Move ${nameOf(m)} down`}
                  disabled={i === value.members.length - 1}
                  onClick={() => move(i, 1)}
                >
                  ↓
                </button>
                <button
                  type="button"
                  className="button button--quiet"
                  aria-label={`Remove ${nameOf(m)}`}
                  onClick={() =>
                    set(
                      'members',
                      value.members.filter((x) => x !== m),
                    )
                  }
                >
                  Remove
                </button>
              </li>
            ))}
          </ol>
        )}
        <label htmlFor={id('members')}>Add a member</label>
        <select
          id={id('members')}
          value=""
          aria-invalid={errors.members ? true : undefined}
          aria-describedby={describedBy('members')}
          disabled={candidates.length === 0}
          onChange={(e) => {
            const identity = e.currentTarget.value;
            if (identity) set('members', [...value.members, identity]);
          }}
        >
          <option value="">
            {candidates.length === 0 ? 'Everyone is a member' : 'Choose a person…'}
          </option>
          {candidates.map((p) => (
            <option key={p.identity} value={p.identity}>
              {p.name} ({p.identity})
            </option>
          ))}
        </select>
        {error('members')}
      </fieldset>
      <fieldset className="field">
        <legend>Members ring</legend>
        {(Object.keys(STRATEGY_LABELS) as Strategy[]).map((s, i) => (
          <label key={s} className="group-form__choice">
            <input
              type="radio"
              name={id('strategy')}
              id={i === 0 ? id('strategy') : undefined}
              checked={value.strategy === s}
              onChange={() => set('strategy', s)}
            />
            {STRATEGY_LABELS[s]}
          </label>
        ))}
        {error('strategy')}
      </fieldset>
      <div className="field">
        <label htmlFor={id('ringTimeout')}>Ring for (seconds)</label>
        <input
          id={id('ringTimeout')}
          type="number"
          min={RING_TIMEOUT_MIN}
          max={RING_TIMEOUT_MAX}
          value={Number.isNaN(value.ringTimeout) ? '' : value.ringTimeout}
          aria-invalid={errors.ringTimeout ? true : undefined}
          aria-describedby={describedBy('ringTimeout')}
          onChange={(e) => set('ringTimeout', e.currentTarget.valueAsNumber)}
        />
        {error('ringTimeout')}
      </div>
      {formError !== null && (
        <p className="form-error" role="alert">
          {formError}
        </p>
      )}
      <div className="group-form__actions">
        <button type="submit" className="button button--primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
        <button type="button" className="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
