import { useId, useState } from 'react';
import { saveCalendar } from '../../../../app/mutators/admin/hours';
import { CALENDARS } from '../../../../contracts/objects';
import { MAX_HOLIDAYS, type Calendar, type Holiday } from '../../../../contracts/records/calendar';
import {
  addMonths,
  calendarFromData,
  calendarToData,
  sortHolidays,
  validateCalendar,
  validateHoliday,
  type HolidayErrors,
} from '../../../../domain/calendar';
import { useNow } from '../../../components/clock';
import { AdminForm, useFields, useFormKit, type FormFrame, type FormState } from '../form';
import { documentScreen, GroupDocumentScreen } from '../GroupDocumentScreen';
import './calendar.css';
import { EMPTY_HOLIDAY, HolidayForm, type HolidayDraft } from './HolidayForm';
import { describeDays, newHolidayId } from './holidays';
import { IcsImport } from './IcsImport';
import { MonthView, monthTitle, sameDayIn } from './MonthView';
import { wallClock } from '../../../../domain/wall-clock';

const SCREEN = {
  ...documentScreen({ read: calendarFromData, write: calendarToData }, 'calendar', 'holidays'),
  saveLabel: 'Save holidays',
};

/**
 * /admin/calendar/{id}/edit: a ring group's holidays (closed all day, whatever the hours say): a
 * month view to pick days, single days and ranges with a name, edits and deletes, and an import
 * from an `.ics` file with a preview. Saved together through the editor machine, so another
 * admin's earlier save offers theirs or an overwrite.
 */
export function Component() {
  return (
    <GroupDocumentScreen
      family={CALENDARS}
      spec={SCREEN}
      store={{ validate: validateCalendar, save: saveCalendar }}
      describeTheirs={({ holidays }) =>
        `Their version: ${
          holidays.length === 0
            ? 'no holidays'
            : holidays.map((h) => `${h.label} (${describeDays(h)})`).join('; ')
        }.`
      }
      intro={(group) => (
        <>
          Holidays of {group}: closed all day (in the group’s time zone), whatever its business
          hours say.
        </>
      )}
    >
      {(form, frame) => <CalendarForm form={form} frame={frame} />}
    </GroupDocumentScreen>
  );
}

function CalendarForm({ form, frame }: { form: FormState<Calendar>; frame: FormFrame }) {
  const uid = useId();
  const holidays = form.draft.holidays;
  const now = useNow(60_000);
  const today = wallClock(now, Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC').date;
  const [focused, setFocused] = useState(today);
  const [adding, setAdding] = useState<HolidayDraft>(EMPTY_HOLIDAY);
  const [editingId, setEditingId] = useState<string | null>(null);
  const [addErrors, setAddErrors] = useState<HolidayErrors>({});
  const addFields = useFields(addErrors);

  const setHolidays = (list: Holiday[]) => form.change({ holidays: sortHolidays(list) });

  const pick = (date: string, extend: boolean) => {
    setAdding((a) =>
      extend && a.start !== '' && date >= a.start
        ? { ...a, end: date }
        : { ...a, start: date, end: date },
    );
    setAddErrors({});
  };

  const addHoliday = () => {
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
      document.getElementById(addFields.id(first))?.focus();
      return;
    }
    setHolidays(
      editingId
        ? holidays.map((h) => (h.id === editingId ? { ...h, ...candidate } : h))
        : [...holidays, { id: newHolidayId(), ...candidate }],
    );
    setAdding(EMPTY_HOLIDAY);
    setEditingId(null);
    setFocused(candidate.start);
  };

  const startEdit = (h: Holiday) => {
    setEditingId(h.id);
    setAdding({ label: h.label, start: h.start, end: h.end });
    setAddErrors({});
    setFocused(h.start);
    document.getElementById(addFields.id('label'))?.focus();
  };

  const selection =
    adding.start !== '' ? { start: adding.start, end: adding.end || adding.start } : null;

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
        <HolidayForm
          fields={addFields}
          headingId={`${uid}-add`}
          draft={adding}
          changing={editingId !== null}
          onChange={setAdding}
          onSubmit={addHoliday}
          onClear={() => {
            setAdding(EMPTY_HOLIDAY);
            setEditingId(null);
            setAddErrors({});
          }}
        />
        <IcsImport
          holidays={holidays}
          onAdd={(fresh) => {
            setHolidays([...holidays, ...fresh]);
            if (fresh[0]) setFocused(fresh[0].start);
          }}
        />
      </section>

      <HolidayList
        form={form}
        listId={`${uid}-list`}
        onChange={setHolidays}
        onStartEdit={startEdit}
        frame={frame}
      />
    </div>
  );
}

/** The holidays to be saved, each with its problem (after a refused save), to change or delete. */
function HolidayList({
  form,
  listId,
  onChange,
  onStartEdit,
  frame,
}: {
  form: FormState<Calendar>;
  listId: string;
  onChange: (holidays: Holiday[]) => void;
  onStartEdit: (holiday: Holiday) => void;
  frame: FormFrame;
}) {
  const kit = useFormKit(form);
  const { errors } = form;
  const holidays = form.draft.holidays;
  return (
    <AdminForm
      kit={kit}
      onRefused={() => document.getElementById(listId)?.focus()}
      {...frame}
      className="calendar-edit__list"
      actionsClassName="calendar-edit__actions"
      cancelWhileBusy
      before={errors.holidays && <p className="field__error">{errors.holidays}</p>}
    >
      <h2 id={listId} tabIndex={-1}>
        Holidays ({holidays.length})
      </h2>
      {holidays.length === 0 ? (
        <p>No holidays yet: the group follows its business hours every day.</p>
      ) : (
        <table className="table calendar-edit__table">
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
                      onClick={() => onStartEdit(h)}
                    >
                      Change
                    </button>
                    <button
                      type="button"
                      className="button button--quiet"
                      aria-label={`Delete ${h.label}`}
                      onClick={() => onChange(holidays.filter((x) => x.id !== h.id))}
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
    </AdminForm>
  );
}
