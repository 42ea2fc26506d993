import type { FormEvent } from 'react';
import type { Fields } from '../form';
import { TextField } from '../form';

/** A holiday being added or changed, as typed. */
export interface HolidayDraft {
  label: string;
  start: string;
  end: string;
}

export const EMPTY_HOLIDAY: HolidayDraft = { label: '', start: '', end: '' };

/** "Add a holiday" (or "Change a holiday"): its name and its first and last day. */
export function HolidayForm({
  fields,
  headingId,
  draft,
  changing,
  onChange,
  onSubmit,
  onClear,
}: {
  /** The form's fields, with the errors of its last submit. */
  fields: Fields;
  headingId: string;
  draft: HolidayDraft;
  /** A holiday already in the list is being changed. */
  changing: boolean;
  onChange: (draft: HolidayDraft) => void;
  onSubmit: () => void;
  onClear: () => void;
}) {
  return (
    <>
      <h2 id={headingId}>{changing ? 'Change a holiday' : 'Add a holiday'}</h2>
      <form
        className="calendar-edit__add"
        noValidate
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          onSubmit();
        }}
      >
        <TextField
          fields={fields}
          field="label"
          label="Holiday name"
          value={draft.label}
          maxLength={200}
          onChange={(label) => onChange({ ...draft, label })}
        />
        <TextField
          fields={fields}
          field="start"
          label="First day"
          type="date"
          value={draft.start}
          onChange={(start) =>
            onChange({
              ...draft,
              start,
              end: draft.end === '' || draft.end === draft.start ? start : draft.end,
            })
          }
        />
        <TextField
          fields={fields}
          field="end"
          label="Last day"
          type="date"
          value={draft.end}
          onChange={(end) => onChange({ ...draft, end })}
        />
        <div className="calendar-edit__actions">
          <button type="submit" className="button">
            {changing ? 'Change holiday' : 'Add holiday'}
          </button>
          {(changing || draft !== EMPTY_HOLIDAY) && (
            <button type="button" className="button button--quiet" onClick={onClear}>
              Clear
            </button>
          )}
        </div>
      </form>
    </>
  );
}
