import { useMemo } from 'react';
import { saveSchedule } from '../../../../app/mutators/admin/hours';
import { CALENDARS, SCHEDULES } from '../../../../contracts/objects';
import {
  WEEKDAYS,
  type Schedule,
  type TimeRange,
  type Weekday,
} from '../../../../contracts/records/schedule';
import { calendarFromData } from '../../../../domain/calendar';
import { MAX_RANGES_PER_DAY, openNow, validateSchedule } from '../../../../domain/hours';
import { scheduleFromData, scheduleToData, summariseWeek } from '../../../../domain/schedule';
import { selectDocumentData } from '../../../../machines/syncDocument.selectors';
import { useNow } from '../../../components/clock';
import { useContainerSelector, useSyncDocument } from '../../../sync/useSyncContainers';
import {
  AdminForm,
  Button,
  useFormKit,
  type Fields,
  type FormFrame,
  type FormState,
} from '../form';
import { documentScreen, GroupDocumentScreen } from '../GroupDocumentScreen';
import './schedule.css';
import { weekdayName } from '../../../../domain/weekdays';
import { describeOpenNow } from '../../../../domain/hours-text';
import { isTimeZone } from '../../../../domain/wall-clock';

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
  return (
    <GroupDocumentScreen
      family={SCHEDULES}
      spec={documentScreen(
        { read: scheduleFromData, write: scheduleToData },
        'schedule',
        'business hours',
      )}
      store={{ validate: validateSchedule, save: saveSchedule }}
      describeTheirs={(s) =>
        `Their version: ${summariseWeek(s)} (${s.timeZone || 'no time zone'}).`
      }
      intro={(group) => (
        <>
          Business hours of {group}. Calls outside them get the group’s closed announcement and
          closed forwarding rules.
        </>
      )}
    >
      {(form, frame, groupId) => <ScheduleForm form={form} frame={frame} groupId={groupId} />}
    </GroupDocumentScreen>
  );
}

function ScheduleForm({
  form,
  frame,
  groupId,
}: {
  form: FormState<Schedule>;
  frame: FormFrame;
  groupId: string;
}) {
  const kit = useFormKit(form);
  const { fields, draft: schedule } = kit;
  const zones = useMemo(zoneNames, []);
  const set = (next: Schedule) => form.change(next);
  const setDay = (day: Weekday, ranges: TimeRange[]) =>
    set({ ...schedule, week: { ...schedule.week, [day]: ranges } });

  const copyMonday = () => {
    const monday = schedule.week.mon ?? [];
    const week = { ...schedule.week };
    for (const day of ['tue', 'wed', 'thu', 'fri'] as const)
      week[day] = monday.map((r) => ({ ...r }));
    set({ ...schedule, week });
  };

  return (
    <AdminForm
      kit={kit}
      {...frame}
      className="schedule-form"
      actionsClassName="schedule-form__actions"
      cancelWhileBusy
    >
      <div className="field">
        <label htmlFor={fields.id('timeZone')}>Time zone</label>
        <input
          {...fields.control('timeZone')}
          list={`${fields.id('zones')}`}
          value={schedule.timeZone}
          autoComplete="off"
          spellCheck={false}
          placeholder="Europe/London"
          onChange={(e) => set({ ...schedule, timeZone: e.target.value })}
        />
        <datalist id={fields.id('zones')}>
          {zones.map((z) => (
            <option key={z} value={z} />
          ))}
        </datalist>
        {fields.error('timeZone')}
      </div>
      <p className="schedule-form__hint">
        Times are 24-hour <code>HH:MM</code> in that zone; use 24:00 for midnight at the end of a
        day. A day with no hours is closed.
      </p>
      {WEEKDAYS.map((day) => (
        <Day
          key={day}
          day={day}
          fields={fields}
          ranges={schedule.week[day] ?? []}
          onChange={(ranges) => setDay(day, ranges)}
        />
      ))}
      <div>
        <Button onClick={copyMonday}>Copy Monday’s hours to Tuesday–Friday</Button>
      </div>
      <OpenNowPreview
        groupId={groupId}
        schedule={schedule}
        valid={Object.keys(validateSchedule(schedule)).length === 0}
      />
    </AdminForm>
  );
}

/** One weekday's opening hours: its ranges, each removable, and the way to add one. */
function Day({
  day,
  fields,
  ranges,
  onChange,
}: {
  day: Weekday;
  fields: Fields;
  ranges: TimeRange[];
  onChange: (ranges: TimeRange[]) => void;
}) {
  const name = weekdayName(day);
  const time = (i: number, end: 'start' | 'end') => {
    const path = `week.${day}.${i}.${end}`;
    const r = ranges[i]!;
    return (
      <>
        <label htmlFor={fields.id(path)} className="visually-hidden">
          {name} hours {i + 1} {end === 'start' ? 'open' : 'close'} at
        </label>
        <input
          {...fields.control(path)}
          className="schedule-day__time"
          value={r[end]}
          inputMode="numeric"
          placeholder={end === 'start' ? '09:00' : '17:00'}
          onChange={(e) =>
            onChange(ranges.map((x, k) => (k === i ? { ...x, [end]: e.target.value } : x)))
          }
        />
      </>
    );
  };
  return (
    <fieldset className="schedule-day" data-testid={`schedule-day-${day}`}>
      <legend>{name}</legend>
      {ranges.length === 0 && <p className="schedule-day__closed">Closed</p>}
      <ol className="schedule-day__ranges">
        {ranges.map((_, i) => (
          <li key={i}>
            {time(i, 'start')}
            <span aria-hidden="true">to</span>
            {time(i, 'end')}
            <Button
              quiet
              label={`Remove ${name} hours ${i + 1}`}
              onClick={() => onChange(ranges.filter((_, k) => k !== i))}
            >
              Remove
            </Button>
            {fields.error(`week.${day}.${i}.start`)}
            {fields.error(`week.${day}.${i}.end`)}
          </li>
        ))}
      </ol>
      <button
        type="button"
        id={`${fields.id(`week.${day}`)}-add`}
        className="button button--quiet"
        disabled={ranges.length >= MAX_RANGES_PER_DAY}
        aria-describedby={fields.control(`week.${day}`)['aria-describedby']}
        onClick={() => {
          const last = ranges[ranges.length - 1];
          onChange([
            ...ranges,
            last
              ? { start: last.end === '24:00' ? '' : last.end, end: '' }
              : { start: '09:00', end: '17:00' },
          ]);
        }}
      >
        Add hours on {name}
      </button>
      {fields.error(`week.${day}`)}
    </fieldset>
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
  const calendarDoc = useSyncDocument(CALENDARS.name(groupId), { mode: 'open_existing' });
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
