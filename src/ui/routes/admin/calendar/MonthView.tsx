import { useEffect, useRef, type KeyboardEvent } from 'react';
import { addDays, addMonths, monthGrid } from '../../../../domain/calendar';
import { holidayOn } from '../../../../domain/hours';
import type { Holiday } from '../../../../contracts/records/calendar';
import { describeDate } from '../../../../domain/hours-text';

const WEEKDAY_HEADERS = [
  ['Mon', 'Monday'],
  ['Tue', 'Tuesday'],
  ['Wed', 'Wednesday'],
  ['Thu', 'Thursday'],
  ['Fri', 'Friday'],
  ['Sat', 'Saturday'],
  ['Sun', 'Sunday'],
] as const;

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

export function monthTitle(date: string): string {
  return `${MONTH_NAMES[Number(date.slice(5, 7)) - 1] ?? ''} ${date.slice(0, 4)}`;
}

/**
 * A month as a grid of days, Monday first, holidays marked and named. One day holds the focus
 * (roving tabindex): arrow keys move by a day or a week, Home and End to the week's ends, Page Up
 * and Page Down by a month; Enter or a click picks the day, Shift extends a range to it.
 */
export function MonthView({
  focused,
  today,
  holidays,
  selection,
  onFocus,
  onPick,
}: {
  /** The day holding the focus; its month is shown. */
  focused: string;
  today: string;
  holidays: readonly Holiday[];
  /** The days chosen in the form (highlighted), if any. */
  selection: { start: string; end: string } | null;
  onFocus: (date: string) => void;
  onPick: (date: string, extend: boolean) => void;
}) {
  const weeks = monthGrid(focused);
  const month = focused.slice(0, 7);
  const gridRef = useRef<HTMLTableElement>(null);
  const hadFocus = useRef(false);
  useEffect(() => {
    // Keyboard moves keep the focus on the focused day (also across a change of month).
    if (!hadFocus.current) return;
    gridRef.current?.querySelector<HTMLElement>(`[data-date="${focused}"]`)?.focus();
  }, [focused]);
  const calendar = { holidays: [...holidays] };

  const onKeyDown = (event: KeyboardEvent<HTMLTableElement>) => {
    const moves: Record<string, () => string> = {
      ArrowLeft: () => addDays(focused, -1),
      ArrowRight: () => addDays(focused, 1),
      ArrowUp: () => addDays(focused, -7),
      ArrowDown: () => addDays(focused, 7),
      Home: () => addDays(focused, -((new Date(`${focused}T00:00:00Z`).getUTCDay() + 6) % 7)),
      End: () => addDays(focused, 6 - ((new Date(`${focused}T00:00:00Z`).getUTCDay() + 6) % 7)),
      PageUp: () => sameDayIn(focused, -1),
      PageDown: () => sameDayIn(focused, 1),
    };
    const move = moves[event.key];
    if (move) {
      event.preventDefault();
      hadFocus.current = true;
      onFocus(move());
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      onPick(focused, event.shiftKey);
    }
  };

  return (
    <table
      ref={gridRef}
      className="month"
      role="grid"
      aria-label={monthTitle(focused)}
      onKeyDown={onKeyDown}
      onFocus={() => {
        hadFocus.current = true;
      }}
      data-testid="month-view"
    >
      <thead>
        <tr>
          {WEEKDAY_HEADERS.map(([short, long]) => (
            <th key={short} scope="col" abbr={long}>
              {short}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {weeks.map((week) => (
          <tr key={week[0]}>
            {week.map((day) => {
              const holiday = holidayOn(calendar, day);
              const inMonth = day.slice(0, 7) === month;
              const chosen = selection !== null && selection.start <= day && day <= selection.end;
              const classes = [
                'month__day',
                inMonth ? '' : 'month__day--outside',
                holiday ? 'month__day--holiday' : '',
                chosen ? 'month__day--chosen' : '',
                day === today ? 'month__day--today' : '',
              ]
                .filter(Boolean)
                .join(' ');
              return (
                <td
                  key={day}
                  role="gridcell"
                  aria-selected={chosen}
                  data-date={day}
                  tabIndex={day === focused ? 0 : -1}
                  className={classes}
                  aria-label={`${describeDate(day)}${holiday ? `, ${holiday.label}` : ''}${day === today ? ', today' : ''}`}
                  onFocus={() => {
                    if (day !== focused) onFocus(day);
                  }}
                  onClick={(e) => {
                    onFocus(day);
                    onPick(day, e.shiftKey);
                  }}
                >
                  {/* The number is drawn by CSS (attr): the cell's visible text is then only the
                      holiday's name, which its accessible name contains (WCAG 2.5.3, label in name). */}
                  <span
                    className="month__number"
                    data-day={Number(day.slice(8, 10))}
                    aria-hidden="true"
                  />
                  {holiday && (
                    <span className="month__label" aria-hidden="true">
                      {holiday.label}
                    </span>
                  )}
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The same day of the month `months` away (the month's last day when it has fewer days). */
export function sameDayIn(date: string, months: number): string {
  const first = addMonths(date, months);
  const lastOfMonth = addDays(addMonths(first, 1), -1);
  const wanted = `${first.slice(0, 8)}${date.slice(8, 10)}`;
  return wanted > lastOfMonth ? lastOfMonth : wanted;
}
