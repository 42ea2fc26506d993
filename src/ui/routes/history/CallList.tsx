import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useRef } from 'react';
import { API } from '../../../contracts/api';
import type { Outcome } from '../../../contracts/records/call';
import { pathOf } from '../../../contracts/api-route';
import type { Names } from '../../names/names';
import { directionFor, formatDuration, type Call } from './call';
import { describeTrail, rowParty } from './row';
import { QualityMark } from './QualityMark';

/** A first guess of a row's height; each row is measured as it renders (text wraps). */
const ROW_ESTIMATE = 88;
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

/**
 * The outcome as a person reads it; a dropped call says why ("Dropped: the server restarted"), as
 * nobody hung it up.
 */
export function outcomeText(call: Pick<Call, 'outcome' | 'reason'>): string {
  if (!call.outcome) return 'Unknown';
  const label = OUTCOME_LABEL[call.outcome];
  const why = call.reason.trim().replace(/\.$/, '');
  if (call.outcome !== 'dropped' || !why) return label;
  return `${label}: ${why.charAt(0).toLowerCase()}${why.slice(1)}`;
}

export interface RowContext {
  me: string | null;
  names: Names;
  /** Places a call (click to call), or null while the phone cannot. */
  onCall: ((to: string, displayName?: string | null) => void) | null;
  /** Whether the signed-in person may play a voicemail left for this group (its members, admins). */
  canHear: (groupId: string) => boolean;
  /** Whether the call's message is unread for the signed-in person. */
  isUnread: (call: Call) => boolean;
  /** The message of this call was played. */
  onHeard: (voicemailId: string) => void;
}

const CallRow = memo(function CallRow({
  call,
  top,
  row,
  measure,
  context,
}: {
  call: Call;
  top: number;
  row: number;
  measure: (element: HTMLElement | null) => void;
  context: RowContext;
}) {
  const { me, names, onCall, canHear, isUnread, onHeard } = context;
  const direction = directionFor(call, me);
  const { party, group, callBack } = rowParty(call, me, names);
  const unread = isUnread(call);
  const trail = describeTrail(call.trail, names);
  const message = call.voicemail;
  const talk = call.duration ? formatDuration(call.duration) : null;
  const meta = [
    call.startedAt === null ? null : when.format(call.startedAt),
    direction === 'inbound' ? 'Inbound' : direction === 'outbound' ? 'Outbound' : 'Unknown',
  ].filter(Boolean);
  return (
    <li
      className={`call-row${unread ? ' call-row--unread' : ''}`}
      data-testid="call-row"
      data-index={call.index}
      data-row={row}
      data-unread={unread || undefined}
      ref={measure}
      style={{ transform: `translateY(${top}px)` }}
    >
      <div className="call-row__who">
        {unread && (
          <span className="call-row__unread" data-testid="voicemail-unread">
            New
          </span>
        )}
        {call.test && (
          <span className="call-row__test" data-testid="call-test">
            Test
          </span>
        )}
        <span className="call-row__name" data-testid="call-party">
          {party.name}
        </span>
        {party.detail && <span className="call-row__detail">{party.detail}</span>}
      </div>
      <p className="call-row__meta">
        <span className="call-row__when">{meta.join(' · ')}</span>
        {' · '}
        <span className={`call-row__outcome call-row__outcome--${call.outcome ?? 'unknown'}`}>
          {outcomeText(call)}
        </span>
        {talk && <span className="call-row__duration"> · {talk}</span>}
        {message && (
          <span className="call-row__duration" data-testid="voicemail-duration">
            {' · '}Message {formatDuration(message.seconds)}
          </span>
        )}
        <QualityMark quality={call.quality} me={me} names={names} />
      </p>
      {(group || trail) && (
        <p className="call-row__via">
          {[group && `via ${group.name}${group.detail ? ` (${group.detail})` : ''}`, trail]
            .filter(Boolean)
            .join(' · ')}
        </p>
      )}
      <div className="call-row__actions">
        {message && canHear(call.group ?? '') && (
          <audio
            className="call-row__player"
            controls
            preload="none"
            src={pathOf(API.voicemail, { id: message.id })}
            aria-label={`Voicemail from ${party.name}, ${message.seconds} seconds`}
            data-testid="voicemail-player"
            onPlay={() => onHeard(message.id)}
          />
        )}
        <span title={onCall ? undefined : PHONE_NOT_READY}>
          <button
            type="button"
            className="button button--quiet call-row__callback"
            disabled={!onCall || !callBack}
            aria-describedby={onCall ? undefined : 'callback-not-ready'}
            aria-label={callBack ? `Call back ${callBack.label}` : 'Call back'}
            onClick={() => callBack && onCall?.(callBack.to, callBack.label)}
          >
            Call back
          </button>
        </span>
      </div>
    </li>
  );
});

/**
 * The calls, newest first, virtualised; each row is measured, so wrapped text never overlaps the
 * next one. When the rows in view come near the end of what is loaded, `onNearEnd` asks for the next
 * page, so scrolling reads the log page by page.
 */
export function CallList({
  calls,
  loaded,
  onNearEnd,
  context,
}: {
  calls: Call[];
  /** How many calls are loaded in all (filtered or not): a page that adds none shown asks again. */
  loaded: number;
  onNearEnd: () => void;
  context: RowContext;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: calls.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_ESTIMATE,
    overscan: 6,
    indexAttribute: 'data-row',
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
      className="virtual-list call-list"
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
              row={row.index}
              measure={virtualizer.measureElement}
              context={context}
            />
          ) : null;
        })}
      </ul>
    </div>
  );
}
