import { useMemo } from 'react';
import { calendarFromData } from '../../../../domain/calendar';
import { nextHoliday, openNow } from '../../../../domain/hours';
import { scheduleFromData, summariseWeek } from '../../../../domain/schedule';
import {
  selectDocumentData,
  selectDocumentStatus,
} from '../../../../machines/syncDocument.selectors';
import { useNow } from '../../../components/clock';
import { useContainerSelector, useSyncDocument } from '../../../sync/useSyncContainers';
import { groupObjectNames as groupObjects } from '../../../../contracts/objects';
import { describeDate, describeOpenNow } from '../../../../domain/hours-text';

/**
 * A group's business hours on its page, live: the week, the zone, whether it is open right now and
 * until when (re-read every few seconds, so it turns over at the boundary), and the next holiday.
 */
export function GroupHours({ groupId }: { groupId: string }) {
  const names = groupObjects(groupId);
  const scheduleDoc = useSyncDocument(names.schedule, { mode: 'open_existing' });
  const calendarDoc = useSyncDocument(names.calendar, { mode: 'open_existing' });
  const scheduleStatus = useContainerSelector(scheduleDoc, selectDocumentStatus, 'opening');
  const scheduleData = useContainerSelector(scheduleDoc, selectDocumentData, null);
  const calendarStatus = useContainerSelector(calendarDoc, selectDocumentStatus, 'opening');
  const calendarData = useContainerSelector(calendarDoc, selectDocumentData, null);
  const schedule = useMemo(() => scheduleFromData(scheduleData), [scheduleData]);
  const calendar = useMemo(() => calendarFromData(calendarData), [calendarData]);
  const now = useNow(5_000);

  let body;
  if (scheduleStatus === 'opening') {
    body = <p role="status">Loading the business hours…</p>;
  } else if (scheduleStatus !== 'ready') {
    body = <p role="alert">The business hours could not be loaded.</p>;
  } else {
    const answer = openNow(schedule, calendar, now);
    const holiday = nextHoliday(calendar, now, schedule.timeZone);
    body = (
      <dl>
        <dt>Right now</dt>
        <dd data-testid="group-open-now" data-open={answer.open}>
          {describeOpenNow(answer, now, schedule.timeZone)}
        </dd>
        <dt>Hours</dt>
        <dd data-testid="group-hours">
          {summariseWeek(schedule)}
          {schedule.timeZone && ` (${schedule.timeZone})`}
        </dd>
        <dt>Next holiday</dt>
        <dd data-testid="group-next-holiday">
          {calendarStatus === 'opening'
            ? 'Loading the holidays…'
            : calendarStatus !== 'ready'
              ? 'The holidays could not be loaded.'
              : holiday
                ? holiday.start === holiday.end
                  ? `${holiday.label}, ${describeDate(holiday.start)}`
                  : `${holiday.label}, ${describeDate(holiday.start)} to ${describeDate(holiday.end)}`
                : 'None planned'}
        </dd>
      </dl>
    );
  }
  return (
    <section aria-labelledby={`hours-${groupId}`} className="group-hours">
      <h2 id={`hours-${groupId}`}>Business hours</h2>
      {body}
    </section>
  );
}
