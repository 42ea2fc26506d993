import { WEEKDAYS, type Weekday } from '../../../../contracts/records/schedule';
import { summariseWeek, weeklySchedule, type WeeklyHours } from '../../../../domain/schedule';
import { zoneNames } from '../../../../domain/wall-clock';
import { weekdayName } from '../../../../domain/weekdays';
import type { Fields } from '../form';

/** The create form's hours fields in the order they are shown. */
export const NEW_GROUP_HOURS_FIELDS = ['timeZone', 'opens', 'closes'] as const;

/**
 * A new group's business hours on its create form: the days it opens, one opening and closing time
 * and the time zone (the admin's browser's at first), with the week they make. Several ranges a day
 * are set afterwards on the group's Business hours screen.
 */
export function NewGroupHours({
  fields,
  hours,
  onChange,
}: {
  fields: Fields;
  hours: WeeklyHours;
  onChange: (hours: WeeklyHours) => void;
}) {
  const toggle = (day: Weekday, on: boolean) =>
    onChange({
      ...hours,
      days: WEEKDAYS.filter((d) => (d === day ? on : hours.days.includes(d))),
    });
  const summary = summariseWeek(
    weeklySchedule(hours.timeZone, hours.days, hours.opens, hours.closes),
  );
  return (
    <fieldset className="field group-form__hours">
      <legend>Business hours</legend>
      <p className="group-form__hint" data-testid="new-group-hours" aria-live="polite">
        Open {summary === 'No opening hours' ? 'never (no days chosen)' : summary}, in{' '}
        {hours.timeZone.trim() || 'no time zone'}. Outside these hours callers hear the closed
        announcement and go to voicemail (or the closed forwarding rule).
      </p>
      <fieldset className="group-form__days">
        <legend>Open on</legend>
        {WEEKDAYS.map((day) => (
          <label key={day} className="group-form__choice">
            <input
              type="checkbox"
              checked={hours.days.includes(day)}
              onChange={(e) => toggle(day, e.currentTarget.checked)}
            />
            {weekdayName(day)}
          </label>
        ))}
      </fieldset>
      <div className="group-form__times">
        <div className="field">
          <label htmlFor={fields.id('opens')}>Opens at</label>
          <input
            {...fields.control('opens')}
            value={hours.opens}
            inputMode="numeric"
            placeholder="09:00"
            autoComplete="off"
            onChange={(e) => onChange({ ...hours, opens: e.currentTarget.value })}
          />
          {fields.error('opens')}
        </div>
        <div className="field">
          <label htmlFor={fields.id('closes')}>Closes at</label>
          <input
            {...fields.control('closes')}
            value={hours.closes}
            inputMode="numeric"
            placeholder="17:00"
            autoComplete="off"
            onChange={(e) => onChange({ ...hours, closes: e.currentTarget.value })}
          />
          {fields.error('closes')}
        </div>
      </div>
      <div className="field">
        <label htmlFor={fields.id('timeZone')}>Time zone</label>
        <input
          {...fields.control('timeZone')}
          list={fields.id('zones')}
          value={hours.timeZone}
          autoComplete="off"
          spellCheck={false}
          placeholder="Europe/London"
          onChange={(e) => onChange({ ...hours, timeZone: e.currentTarget.value })}
        />
        <datalist id={fields.id('zones')}>
          {zoneNames().map((z) => (
            <option key={z} value={z} />
          ))}
        </datalist>
        {fields.error('timeZone')}
      </div>
    </fieldset>
  );
}
