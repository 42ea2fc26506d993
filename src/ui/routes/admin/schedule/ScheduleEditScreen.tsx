import { useCallback, useId, useMemo, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import {
  describeOpenNow,
  isTimeZone,
  MAX_RANGES_PER_DAY,
  openNow,
  validateSchedule,
  weekdayName,
} from '../../../../domain/hours';
import { scheduleFromData, scheduleToData, summariseWeek } from '../../../../domain/schedule';
import { selectDocumentData } from '../../../../machines/syncDocument.selectors';
import type { JsonObject } from '../../../../machines/syncPorts';
import { paths } from '../../../app/paths';
import { useNow } from '../../../components/clock';
import { Screen } from '../../../components/Screen';
import { useContainerSelector, useSyncDocument } from '../../../sync/containers';
import { calendarFromData } from '../../../../domain/calendar';
import { EditorFrame, type EditorFormProps } from '../EditorFrame';
import { useGroups } from '../group/useGroups';
import { useDocumentEditor } from '../useDocumentEditor';
import './schedule.css';
import { groupObjectNames as groupObjects } from '../../../../contracts/objects';
import { WEEKDAYS, type Schedule, type Weekday } from '../../../../contracts/records/schedule';

const WHAT = 'these business hours';
const normalize = (data: JsonObject): JsonObject => scheduleToData(scheduleFromData(data));
const validate = (values: JsonObject) => validateSchedule(scheduleFromData(values));

/** Every zone the browser knows, for suggestions (the field takes any IANA name Intl accepts). */
function zoneNames(): string[] {
  const intl = Intl as typeof Intl & { supportedValuesOf?: (key: 'timeZone') => string[] };
  return intl.supportedValuesOf?.('timeZone') ?? [];
}

/**
 * /admin/schedule/{id}/edit: a ring group's weekly business hours (several ranges a day) and the
 * time zone they are in, with what they mean right now ("open now, until …") as you type. Saved
 * through the editor machine: someone else's earlier save offers theirs or an overwrite.
 */
export function Component() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { groups } = useGroups();
  const editor = useDocumentEditor({
    name: groupObjects(id).schedule,
    normalize,
    validate,
    what: WHAT,
  });
  const onSaved = useCallback(() => void navigate(paths.adminGroup.build(id)), [navigate, id]);
  const group = groups.get(id);
  return (
    <Screen title="Edit schedule">
      <p className="schedule__for">
        Business hours of {group ? <strong>{group.name}</strong> : 'this ring group'}. Calls outside
        them get the group’s closed announcement and closed forwarding rules.
      </p>
      {editor ? (
        <EditorFrame
          editor={editor}
          what={WHAT}
          testId="schedule"
          describeTheirs={(values) => {
            const s = scheduleFromData(values);
            return `Their version: ${summariseWeek(s)} (${s.timeZone || 'no time zone'}).`;
          }}
          savedMessage="The business hours were saved."
          onSaved={onSaved}
        >
          {(form) => (
            <ScheduleForm
              {...form}
              groupId={id}
              onCancel={() => void navigate(paths.adminGroup.build(id))}
            />
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

function ScheduleForm({
  draft,
  errors,
  busy,
  formError,
  change,
  save,
  groupId,
  onCancel,
}: EditorFormProps & { groupId: string; onCancel: () => void }) {
  const uid = useId();
  const schedule = scheduleFromData(draft);
  const zones = useMemo(zoneNames, []);
  const set = (next: Schedule) => change(scheduleToData(next));
  const setDay = (day: Weekday, ranges: { start: string; end: string }[]) =>
    set({ ...schedule, week: { ...schedule.week, [day]: ranges } });
  const fieldId = (path: string) => `${uid}-${path.replace(/\./g, '-')}`;
  const errorOf = (path: string) =>
    errors[path] === undefined ? null : (
      <p id={`${fieldId(path)}-error`} className="field__error">
        {errors[path]}
      </p>
    );
  const described = (path: string) =>
    errors[path] === undefined ? undefined : `${fieldId(path)}-error`;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const refused = save();
    const first = Object.keys(refused)[0];
    if (first !== undefined) {
      const target =
        document.getElementById(fieldId(first)) ?? document.getElementById(`${fieldId(first)}-add`);
      target?.focus();
    }
  };

  const copyMonday = () => {
    const monday = schedule.week.mon ?? [];
    const week = { ...schedule.week };
    for (const day of ['tue', 'wed', 'thu', 'fri'] as const)
      week[day] = monday.map((r) => ({ ...r }));
    set({ ...schedule, week });
  };

  return (
    <form className="schedule-form" noValidate onSubmit={submit} aria-busy={busy}>
      <div className="field">
        <label htmlFor={fieldId('timeZone')}>Time zone</label>
        <input
          id={fieldId('timeZone')}
          list={`${uid}-zones`}
          value={schedule.timeZone}
          autoComplete="off"
          spellCheck={false}
          placeholder="Europe/London"
          aria-invalid={errors.timeZone ? true : undefined}
          aria-describedby={described('timeZone')}
          onChange={(e) => set({ ...schedule, timeZone: e.target.value })}
        />
        <datalist id={`${uid}-zones`}>
          {zones.map((z) => (
            <option key={z} value={z} />
          ))}
        </datalist>
        {errorOf('timeZone')}
      </div>
      <p className="schedule-form__hint">
        Times are 24-hour <code>HH:MM</code> in that zone; use 24:00 for midnight at the end of a
        day. A day with no hours is closed.
      </p>
      {WEEKDAYS.map((day) => {
        const ranges = schedule.week[day] ?? [];
        const name = weekdayName(day);
        return (
          <fieldset key={day} className="schedule-day" data-testid={`schedule-day-${day}`}>
            <legend>{name}</legend>
            {ranges.length === 0 && <p className="schedule-day__closed">Closed</p>}
            <ol className="schedule-day__ranges">
              {ranges.map((r, i) => {
                const start = `week.${day}.${i}.start`;
                const end = `week.${day}.${i}.end`;
                return (
                  <li key={i}>
                    <label htmlFor={fieldId(start)} className="visually-hidden">
                      {name} hours {i + 1} open at
                    </label>
                    <input
                      id={fieldId(start)}
                      className="schedule-day__time"
                      value={r.start}
                      inputMode="numeric"
                      placeholder="09:00"
                      aria-invalid={errors[start] ? true : undefined}
                      aria-describedby={described(start)}
                      onChange={(e) =>
                        setDay(
                          day,
                          ranges.map((x, k) => (k === i ? { ...x, start: e.target.value } : x)),
                        )
                      }
                    />
                    <span aria-hidden="true">to</span>
                    <label htmlFor={fieldId(end)} className="visually-hidden">
                      {name} hours {i + 1} close at
                    </label>
                    <input
                      id={fieldId(end)}
                      className="schedule-day__time"
                      value={r.end}
                      inputMode="numeric"
                      placeholder="17:00"
                      aria-invalid={errors[end] ? true : undefined}
                      aria-describedby={described(end)}
                      onChange={(e) =>
                        setDay(
                          day,
                          ranges.map((x, k) => (k === i ? { ...x, end: e.target.value } : x)),
                        )
                      }
                    />
                    <button
                      type="button"
                      className="button button--quiet"
                      aria-label={`Remove ${name} hours ${i + 1}`}
                      onClick={() =>
                        setDay(
                          day,
                          ranges.filter((_, k) => k !== i),
                        )
                      }
                    >
                      Remove
                    </button>
                    {errorOf(start)}
                    {errorOf(end)}
                  </li>
                );
              })}
            </ol>
            <button
              type="button"
              id={`${fieldId(`week.${day}`)}-add`}
              className="button button--quiet"
              disabled={ranges.length >= MAX_RANGES_PER_DAY}
              aria-describedby={described(`week.${day}`)}
              onClick={() => {
                const last = ranges[ranges.length - 1];
                setDay(day, [
                  ...ranges,
                  last
                    ? { start: last.end === '24:00' ? '' : last.end, end: '' }
                    : { start: '09:00', end: '17:00' },
                ]);
              }}
            >
              Add hours on {name}
            </button>
            {errorOf(`week.${day}`)}
          </fieldset>
        );
      })}
      <div>
        <button type="button" className="button" onClick={copyMonday}>
          Copy Monday’s hours to Tuesday–Friday
        </button>
      </div>
      <OpenNowPreview
        groupId={groupId}
        schedule={schedule}
        valid={Object.keys(validateSchedule(schedule)).length === 0}
      />
      {formError && (
        <p className="form-error" role="alert">
          {formError}
        </p>
      )}
      <div className="schedule-form__actions">
        <button type="submit" className="button button--primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** What the hours being typed mean now, with the group's holidays (read live from its calendar). */
function OpenNowPreview({
  groupId,
  schedule,
  valid,
}: {
  groupId: string;
  schedule: Schedule;
  valid: boolean;
}) {
  const now = useNow(10_000);
  const calendarDoc = useSyncDocument(groupObjects(groupId).calendar, { mode: 'open_existing' });
  const calendarData = useContainerSelector(calendarDoc, selectDocumentData, null);
  const calendar = useMemo(() => calendarFromData(calendarData), [calendarData]);
  const text =
    valid && isTimeZone(schedule.timeZone)
      ? describeOpenNow(openNow(schedule, calendar, now), now, schedule.timeZone)
      : 'Correct the hours above to see what they mean now.';
  return (
    <p className="schedule-form__preview" role="status" data-testid="schedule-preview">
      With these hours: {text} ({summariseWeek(schedule)}).
    </p>
  );
}
