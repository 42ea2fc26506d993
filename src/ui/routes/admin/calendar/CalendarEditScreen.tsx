import { useCallback, useId, useRef, useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import {
  addMonths,
  calendarFromData,
  calendarToData,
  daysBetween,
  sortHolidays,
  validateCalendar,
  validateHoliday,
  type HolidayErrors,
} from '../../../../domain/calendar';
import { describeDate, wallClock } from '../../../../domain/hours';
import { IcsError, parseIcs, planImport, type ImportPlan } from '../../../../domain/ics';
import type { JsonObject } from '../../../../machines/syncPorts';
import { paths } from '../../../app/paths';
import { useNow } from '../../../components/clock';
import { Screen } from '../../../components/Screen';
import { EditorFrame, type EditorFormProps } from '../EditorFrame';
import { useGroups } from '../group/useGroups';
import { useDocumentEditor } from '../useDocumentEditor';
import { MonthView, monthTitle, sameDayIn } from './MonthView';
import './calendar.css';
import { groupObjectNames as groupObjects } from '../../../../contracts/objects';
import type { Holiday } from '../../../../contracts/records/calendar';
import { MAX_HOLIDAYS } from '../../../../contracts/records/calendar';

const WHAT = 'these holidays';
const normalize = (data: JsonObject): JsonObject => calendarToData(calendarFromData(data));
const validate = (values: JsonObject) => validateCalendar(calendarFromData(values));

/** A new holiday id: random, URL-safe, and not dependent on `crypto.randomUUID` (plain-http LANs). */
function newHolidayId(): string {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return `hol-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function describeDays(h: { start: string; end: string }): string {
  return h.start === h.end
    ? describeDate(h.start)
    : `${describeDate(h.start)} to ${describeDate(h.end)} (${daysBetween(h.start, h.end)} days)`;
}

/**
 * /admin/calendar/{id}/edit: a ring group's holidays (closed all day, whatever the hours say): a
 * month view to pick days, single days and ranges with a name, edits and deletes, and an import
 * from an `.ics` file with a preview. Saved together through the editor machine, so another
 * admin's earlier save offers theirs or an overwrite.
 */
export function Component() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { groups } = useGroups();
  const editor = useDocumentEditor({
    name: groupObjects(id).calendar,
    normalize,
    validate,
    what: WHAT,
  });
  const onSaved = useCallback(() => void navigate(paths.adminGroup.build(id)), [navigate, id]);
  const group = groups.get(id);
  return (
    <Screen title="Edit calendar">
      <p className="calendar__for">
        Holidays of {group ? <strong>{group.name}</strong> : 'this ring group'}: closed all day (in
        the group’s time zone), whatever its business hours say.
      </p>
      {editor ? (
        <EditorFrame
          editor={editor}
          what={WHAT}
          testId="calendar"
          describeTheirs={(values) => {
            const list = calendarFromData(values).holidays;
            return `Their version: ${
              list.length === 0
                ? 'no holidays'
                : list.map((h) => `${h.label} (${describeDays(h)})`).join('; ')
            }.`;
          }}
          savedMessage="The holidays were saved."
          onSaved={onSaved}
        >
          {(form) => (
            <CalendarForm {...form} onCancel={() => void navigate(paths.adminGroup.build(id))} />
          )}
        </EditorFrame>
      ) : (
        <p className="screen-status" role="status">
          Loading {WHAT}…
        </p>
      )}
    </Screen>
  );
}

interface Draft {
  label: string;
  start: string;
  end: string;
}
const EMPTY: Draft = { label: '', start: '', end: '' };

function CalendarForm({
  draft,
  errors,
  busy,
  formError,
  change,
  save,
  onCancel,
}: EditorFormProps & { onCancel: () => void }) {
  const uid = useId();
  const calendar = calendarFromData(draft);
  const holidays = calendar.holidays;
  const now = useNow(60_000);
  const today = wallClock(now, Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC').date;
  const [focused, setFocused] = useState(today);
  const [adding, setAdding] = useState<Draft>(EMPTY);
  const [editingId, setEditingId] = useState<string | null>(null);
  const [addErrors, setAddErrors] = useState<HolidayErrors>({});
  const [imported, setImported] = useState<{
    file: string;
    result: ImportPlan;
    fresh: Holiday[];
  } | null>(null);
  const [importError, setImportError] = useState<string | null>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const labelRef = useRef<HTMLInputElement>(null);

  const setHolidays = (list: Holiday[]) => change(calendarToData({ holidays: sortHolidays(list) }));
  const fieldId = (f: string) => `${uid}-${f}`;

  const pick = (date: string, extend: boolean) => {
    setAdding((a) =>
      extend && a.start !== '' && date >= a.start
        ? { ...a, end: date }
        : { ...a, start: date, end: date },
    );
    setAddErrors({});
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const others = holidays.filter((h) => h.id !== editingId);
    const candidate = {
      label: adding.label.trim(),
      start: adding.start,
      end: adding.end || adding.start,
    };
    const found = validateHoliday(candidate, others);
    if (!editingId && holidays.length >= MAX_HOLIDAYS)
      found.label = `Keep at most ${MAX_HOLIDAYS} holidays; delete past ones first.`;
    setAddErrors(found);
    const first = (['label', 'start', 'end'] as const).find((f) => found[f]);
    if (first) {
      document.getElementById(fieldId(first))?.focus();
      return;
    }
    const next = editingId
      ? holidays.map((h) => (h.id === editingId ? { ...h, ...candidate } : h))
      : [...holidays, { id: newHolidayId(), ...candidate }];
    setHolidays(next);
    setAdding(EMPTY);
    setEditingId(null);
    setFocused(candidate.start);
  };

  const startEdit = (h: Holiday) => {
    setEditingId(h.id);
    setAdding({ label: h.label, start: h.start, end: h.end });
    setAddErrors({});
    setFocused(h.start);
    labelRef.current?.focus();
  };

  const readFile = async (file: File | undefined) => {
    setImportError(null);
    setImported(null);
    if (!file) return;
    try {
      if (file.size > 1024 * 1024)
        throw new IcsError('This file is over 1 MB; export fewer events.');
      // Bytes, not text: a line folded inside a UTF-8 character is joined before decoding.
      const result = parseIcs(new Uint8Array(await file.arrayBuffer()));
      // What would overlap a holiday already here (or an earlier one in the file) is left out.
      const plan = planImport(holidays, result);
      if (plan.add.length === 0 && plan.skipped.length === 0)
        throw new IcsError('This file has no events to import.');
      const fresh = plan.add.map((h) => ({ id: newHolidayId(), ...h }));
      setImported({ file: file.name, result: plan, fresh });
    } catch (error) {
      setImportError(
        error instanceof IcsError
          ? error.message
          : 'This file could not be read. Choose an .ics file.',
      );
    } finally {
      if (fileRef.current) fileRef.current.value = '';
    }
  };

  const onSubmitAll = (event: FormEvent) => {
    event.preventDefault();
    const refused = save();
    if (Object.keys(refused).length > 0) document.getElementById(`${uid}-list`)?.focus();
  };

  const selection =
    adding.start !== '' ? { start: adding.start, end: adding.end || adding.start } : null;
  const described = (f: keyof HolidayErrors) => (addErrors[f] ? `${fieldId(f)}-error` : undefined);
  const error = (f: keyof HolidayErrors) =>
    addErrors[f] ? (
      <p id={`${fieldId(f)}-error`} className="field__error">
        {addErrors[f]}
      </p>
    ) : null;

  return (
    <div className="calendar-edit">
      <section className="calendar-edit__month" aria-labelledby={`${uid}-month`}>
        <div className="calendar-edit__nav">
          <button
            type="button"
            className="button button--quiet"
            onClick={() => setFocused(sameDayIn(focused, -1))}
            aria-label={`Previous month, ${monthTitle(addMonths(focused, -1))}`}
          >
            ‹
          </button>
          <h2 id={`${uid}-month`} aria-live="polite">
            {monthTitle(focused)}
          </h2>
          <button
            type="button"
            className="button button--quiet"
            onClick={() => setFocused(sameDayIn(focused, 1))}
            aria-label={`Next month, ${monthTitle(addMonths(focused, 1))}`}
          >
            ›
          </button>
          <button type="button" className="button button--quiet" onClick={() => setFocused(today)}>
            Today
          </button>
        </div>
        <MonthView
          focused={focused}
          today={today}
          holidays={holidays}
          selection={selection}
          onFocus={setFocused}
          onPick={pick}
        />
        <p className="calendar-edit__hint">
          Pick a day to fill in the form; Shift with a click or Enter picks the last day of a range.
          Arrow keys move between days, Page Up and Page Down between months.
        </p>
      </section>

      <section aria-labelledby={`${uid}-add`}>
        <h2 id={`${uid}-add`}>{editingId ? 'Change a holiday' : 'Add a holiday'}</h2>
        <form className="calendar-edit__add" noValidate onSubmit={submit}>
          <div className="field">
            <label htmlFor={fieldId('label')}>Holiday name</label>
            <input
              ref={labelRef}
              id={fieldId('label')}
              value={adding.label}
              maxLength={200}
              aria-invalid={addErrors.label ? true : undefined}
              aria-describedby={described('label')}
              onChange={(e) => setAdding({ ...adding, label: e.target.value })}
            />
            {error('label')}
          </div>
          <div className="field">
            <label htmlFor={fieldId('start')}>First day</label>
            <input
              id={fieldId('start')}
              type="date"
              value={adding.start}
              aria-invalid={addErrors.start ? true : undefined}
              aria-describedby={described('start')}
              onChange={(e) =>
                setAdding({
                  ...adding,
                  start: e.target.value,
                  end:
                    adding.end === '' || adding.end === adding.start ? e.target.value : adding.end,
                })
              }
            />
            {error('start')}
          </div>
          <div className="field">
            <label htmlFor={fieldId('end')}>Last day</label>
            <input
              id={fieldId('end')}
              type="date"
              value={adding.end}
              aria-invalid={addErrors.end ? true : undefined}
              aria-describedby={described('end')}
              onChange={(e) => setAdding({ ...adding, end: e.target.value })}
            />
            {error('end')}
          </div>
          <div className="calendar-edit__actions">
            <button type="submit" className="button">
              {editingId ? 'Change holiday' : 'Add holiday'}
            </button>
            {(editingId || adding !== EMPTY) && (
              <button
                type="button"
                className="button button--quiet"
                onClick={() => {
                  setAdding(EMPTY);
                  setEditingId(null);
                  setAddErrors({});
                }}
              >
                Clear
              </button>
            )}
          </div>
        </form>

        <h2>Import from a calendar file</h2>
        <div className="field">
          <label htmlFor={fieldId('ics')}>iCalendar file (.ics)</label>
          <input
            ref={fileRef}
            id={fieldId('ics')}
            type="file"
            accept=".ics,text/calendar"
            aria-invalid={importError ? true : undefined}
            aria-describedby={importError ? `${fieldId('ics')}-error` : undefined}
            onChange={(e) => void readFile(e.target.files?.[0])}
          />
          {importError && (
            <p id={`${fieldId('ics')}-error`} className="field__error" role="alert">
              {importError}
            </p>
          )}
        </div>
        {imported && (
          <div
            className="calendar-edit__import"
            data-testid="ics-preview"
            role="region"
            aria-label="Import preview"
          >
            <p>
              From {imported.file}: {imported.fresh.length} to add
              {imported.result.skipped.length > 0 && `, ${imported.result.skipped.length} left out`}
              .
              {imported.result.repeating.length > 0 &&
                ` Repeating events are added once, for their first date: ${imported.result.repeating.join(', ')}.`}
            </p>
            {imported.fresh.length > 0 && (
              <ul>
                {imported.fresh.map((h) => (
                  <li key={h.id}>
                    {h.label}: {describeDays(h)}
                  </li>
                ))}
              </ul>
            )}
            {imported.result.skipped.length > 0 && (
              <ul className="calendar-edit__skipped">
                {imported.result.skipped.map((s, i) => (
                  <li key={i}>
                    Left out {s.label}: {s.reason}
                  </li>
                ))}
              </ul>
            )}
            <div className="calendar-edit__actions">
              <button
                type="button"
                className="button"
                disabled={imported.fresh.length === 0}
                onClick={() => {
                  setHolidays([...holidays, ...imported.fresh]);
                  setImported(null);
                  if (imported.fresh[0]) setFocused(imported.fresh[0].start);
                }}
              >
                Add {imported.fresh.length} {imported.fresh.length === 1 ? 'holiday' : 'holidays'}
              </button>
              <button
                type="button"
                className="button button--quiet"
                onClick={() => setImported(null)}
              >
                Cancel import
              </button>
            </div>
          </div>
        )}
      </section>

      <form className="calendar-edit__list" noValidate onSubmit={onSubmitAll} aria-busy={busy}>
        <h2 id={`${uid}-list`} tabIndex={-1}>
          Holidays ({holidays.length})
        </h2>
        {holidays.length === 0 ? (
          <p>No holidays yet: the group follows its business hours every day.</p>
        ) : (
          <table className="calendar-edit__table">
            <thead>
              <tr>
                <th scope="col">Holiday</th>
                <th scope="col">Days</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {holidays.map((h, i) => {
                const problem =
                  errors[`holidays.${i}.start`] ??
                  errors[`holidays.${i}.end`] ??
                  errors[`holidays.${i}.label`];
                return (
                  <tr key={h.id} data-testid="holiday-row">
                    <td>{h.label}</td>
                    <td>
                      {describeDays(h)}
                      {problem && <p className="field__error">{problem}</p>}
                    </td>
                    <td className="calendar-edit__row-actions">
                      <button
                        type="button"
                        className="button button--quiet"
                        aria-label={`Change ${h.label}`}
                        onClick={() => startEdit(h)}
                      >
                        Change
                      </button>
                      <button
                        type="button"
                        className="button button--quiet"
                        aria-label={`Delete ${h.label}`}
                        onClick={() => setHolidays(holidays.filter((x) => x.id !== h.id))}
                      >
                        Delete
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
        {errors.holidays && <p className="field__error">{errors.holidays}</p>}
        {formError && (
          <p className="form-error" role="alert">
            {formError}
          </p>
        )}
        <div className="calendar-edit__actions">
          <button type="submit" className="button button--primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save holidays'}
          </button>
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </div>
  );
}
