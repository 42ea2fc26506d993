import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useRef } from 'react';
import { formatDuration, type Call } from './call';

const ROW_HEIGHT = 64;
/** Ask for the next page when the last rendered row is this close to the end. */
const LOAD_AHEAD = 10;
const SOFTPHONE_LATER = 'Calling comes with the softphone';

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

const OUTCOME_LABEL = {
  answered: 'Answered',
  missed: 'Missed',
  forwarded: 'Forwarded',
  abandoned: 'Abandoned',
} as const;

const CallRow = memo(function CallRow({ call, top }: { call: Call; top: number }) {
  const other = call.direction === 'outbound' ? call.to : call.from;
  return (
    <li
      className="call-row"
      data-testid="call-row"
      data-index={call.index}
      style={{ transform: `translateY(${top}px)` }}
    >
      <span className={`call-row__direction call-row__direction--${call.direction ?? 'unknown'}`}>
        {call.direction === 'inbound'
          ? 'Inbound'
          : call.direction === 'outbound'
            ? 'Outbound'
            : 'Unknown'}
      </span>
      <span className="call-row__who">
        <span className="call-row__number">{other || 'Unknown number'}</span>
        <span className="call-row__via">
          {[call.user, call.group].filter(Boolean).join(' · ') || '\u00a0'}
        </span>
      </span>
      <span className="call-row__when">
        {call.startedAt === null ? '' : when.format(call.startedAt)}
      </span>
      <span className="call-row__duration">{formatDuration(call.duration) ?? ''}</span>
      <span className={`call-row__outcome call-row__outcome--${call.outcome ?? 'unknown'}`}>
        {call.outcome ? OUTCOME_LABEL[call.outcome] : 'Unknown'}
      </span>
      <span title={SOFTPHONE_LATER}>
        <button
          type="button"
          className="button button--quiet"
          disabled
          aria-describedby="callback-later"
        >
          Call back
        </button>
      </span>
    </li>
  );
});

/**
 * The calls, newest first, virtualised. When the rows in view come near the end of what is loaded,
 * `onNearEnd` asks for the next page, so scrolling reads the log page by page.
 */
export function CallList({
  calls,
  loaded,
  onNearEnd,
}: {
  calls: Call[];
  /** How many calls are loaded in all (filtered or not): a page that adds none shown asks again. */
  loaded: number;
  onNearEnd: () => void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: calls.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 6,
    getItemKey: (index) => calls[index]?.index ?? index,
  });
  const rows = virtualizer.getVirtualItems();
  const lastShown = rows.length ? rows[rows.length - 1]!.index : -1;
  const nearEnd = lastShown >= calls.length - LOAD_AHEAD;
  useEffect(() => {
    if (nearEnd) onNearEnd();
  }, [nearEnd, loaded, onNearEnd]);
  return (
    <div
      className="virtual-list"
      ref={scroller}
      data-testid="call-scroller"
      tabIndex={0}
      aria-label="Calls"
    >
      <p id="callback-later" hidden>
        {SOFTPHONE_LATER}
      </p>
      <ul className="virtual-list__rows" style={{ height: virtualizer.getTotalSize() }}>
        {rows.map((row) => {
          const call = calls[row.index];
          return call ? <CallRow key={row.key} call={call} top={row.start} /> : null;
        })}
      </ul>
    </div>
  );
}
