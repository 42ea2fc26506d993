import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useRef } from 'react';
import { API } from '../../../contracts/api';
import type { Outcome } from '../../../contracts/records/call';
import { describeTrail, directionFor, formatDuration, type Call } from './call';
import { pathOf } from '../../../contracts/api-route';
import { QualityMark } from './QualityMark';

const ROW_HEIGHT = 64;
/** Ask for the next page when the last rendered row is this close to the end. */
const LOAD_AHEAD = 10;
const PHONE_NOT_READY = 'The phone is not ready to call';

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

const OUTCOME_LABEL: Record<Outcome, string> = {
  answered: 'Answered',
  missed: 'Missed',
  forwarded: 'Forwarded',
  abandoned: 'Abandoned',
  rejected: 'Declined',
  busy: 'Busy',
  failed: 'Failed',
  voicemail: 'Voicemail',
  dropped: 'Dropped',
  unknown: 'Outcome not known',
  doNotDisturb: 'Do not disturb',
};

/** Who "Call back" reaches from this row: the other party as seen by `me`. */
export function callBackTarget(
  call: Call,
  me: string | null,
): { to: string; label: string } | null {
  if (call.callee && call.from !== '') {
    // A call between colleagues: call whichever of the two is not me.
    const other = call.from === me ? call.callee : call.from;
    return { to: `client:${other}`, label: other };
  }
  const other = call.direction === 'outbound' ? call.to : call.from;
  return other ? { to: other, label: other } : null;
}

const CallRow = memo(function CallRow({
  call,
  top,
  me,
  onCall,
  canHear,
}: {
  call: Call;
  top: number;
  me: string | null;
  onCall: ((to: string) => void) | null;
  canHear: (groupId: string) => boolean;
}) {
  const direction = directionFor(call, me);
  const other = direction === 'inbound' ? call.from : call.callee || call.to;
  const target = callBackTarget(call, me);
  return (
    <li
      className="call-row"
      data-testid="call-row"
      data-index={call.index}
      style={{ transform: `translateY(${top}px)` }}
    >
      <span className={`call-row__direction call-row__direction--${direction ?? 'unknown'}`}>
        {direction === 'inbound' ? 'Inbound' : direction === 'outbound' ? 'Outbound' : 'Unknown'}
      </span>
      <span className="call-row__who">
        <span className="call-row__number">{other || 'Unknown number'}</span>
        <span className="call-row__via">
          {[call.user, call.groupName || call.group, describeTrail(call.trail)]
            .filter(Boolean)
            .join(' · ') || '\u00a0'}
        </span>
      </span>
      <span className="call-row__when">
        {call.startedAt === null ? '' : when.format(call.startedAt)}
      </span>
      <span className="call-row__duration">{formatDuration(call.duration) ?? ''}</span>
      <span className={`call-row__outcome call-row__outcome--${call.outcome ?? 'unknown'}`}>
        {call.outcome ? OUTCOME_LABEL[call.outcome] : 'Unknown'}
        <QualityMark quality={call.quality} me={me} />
      </span>
      <span className="call-row__voicemail">
        {call.voicemail && canHear(call.group ?? '') && (
          <audio
            controls
            preload="none"
            src={pathOf(API.voicemail, { id: call.voicemail.id })}
            aria-label={`Voicemail from ${other || 'an unknown caller'}, ${call.voicemail.seconds} seconds`}
            data-testid="voicemail-player"
          />
        )}
      </span>
      <span title={onCall ? undefined : PHONE_NOT_READY}>
        <button
          type="button"
          className="button button--quiet"
          disabled={!onCall || !target}
          aria-describedby={onCall ? undefined : 'callback-not-ready'}
          aria-label={target ? `Call back ${target.label}` : 'Call back'}
          onClick={() => target && onCall?.(target.to)}
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
  me = null,
  onCall = null,
  canHear = () => false,
}: {
  calls: Call[];
  /** Whether the signed-in person may play a voicemail left for this group (its members, admins). */
  canHear?: (groupId: string) => boolean;
  /** The signed-in identity: a call between colleagues reads inbound or outbound from here. */
  me?: string | null;
  /** Places a call (click to call), or null while the phone cannot. */
  onCall?: ((to: string) => void) | null;
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
      <p id="callback-not-ready" hidden>
        {PHONE_NOT_READY}
      </p>
      <ul className="virtual-list__rows" style={{ height: virtualizer.getTotalSize() }}>
        {rows.map((row) => {
          const call = calls[row.index];
          return call ? (
            <CallRow
              key={row.key}
              call={call}
              top={row.start}
              me={me}
              onCall={onCall}
              canHear={canHear}
            />
          ) : null;
        })}
      </ul>
    </div>
  );
}
