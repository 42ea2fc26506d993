import { useSelector } from '@xstate/react';
import { useEffect, useState } from 'react';
import type { SnapshotFrom } from 'xstate';
import {
  selectCallDirection,
  selectCallDigits,
  selectCallDuration,
  selectCallEndMessage,
  selectCallMuted,
  selectCallRemote,
  selectCallStatus,
  type CallStatus,
} from '../../machines/call.selectors';
import type { CallActor } from '../../machines/device.machine';
import { useNow } from '../components/clock';

const KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'];

const STATUS_TEXT: Record<CallStatus, string> = {
  connecting: 'Calling…',
  ringing: 'Ringing…',
  incoming: 'Incoming call',
  answering: 'Connecting…',
  open: 'On call',
  reconnecting: 'Reconnecting…',
  ended: 'Call ended',
};

/** mm:ss (h:mm:ss past an hour). */
export function formatDuration(ms: number): string {
  const total = Math.floor(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = String(m).padStart(h > 0 ? 2 : 1, '0');
  return `${h > 0 ? `${h}:` : ''}${mm}:${String(s).padStart(2, '0')}`;
}

/** One call: who, its state and timer, and what can be done with it now. */
/** Codes the voice service ends a call with, each with a sentence naming the person and why. */
const SERVICE_SENTENCE_CODES = [31404, 31480, 31486, 31603];

/** The service's own sentence for why the call ended ("Bob is on another call."), when it gave one. */
const selectServiceSentence = (s: SnapshotFrom<CallActor>): string | null => {
  const error = s.context.error;
  return error &&
    error.code !== null &&
    SERVICE_SENTENCE_CODES.includes(error.code) &&
    error.message
    ? error.message
    : null;
};

export function CallCard({ call, onDismiss }: { call: CallActor; onDismiss: () => void }) {
  const status = useSelector(call, selectCallStatus);
  const remote = useSelector(call, selectCallRemote);
  const direction = useSelector(call, selectCallDirection);
  const muted = useSelector(call, selectCallMuted);
  const digits = useSelector(call, selectCallDigits);
  const endMessage = useSelector(call, selectCallEndMessage);
  const error = useSelector(call, selectServiceSentence);
  const now = useNow(1000, status === 'open' || status === 'reconnecting');
  const duration = useSelector(call, selectCallDuration(now));
  const [keypad, setKeypad] = useState(false);
  const name = remote.displayName ?? remote.identity ?? remote.number ?? 'Unknown';
  const detail = remote.displayName && remote.identity ? remote.identity : remote.number;

  useEffect(() => {
    if (status === 'ended') setKeypad(false);
  }, [status]);

  return (
    <article
      className={`call-card call-card--${status}`}
      aria-label={`${direction === 'incoming' ? 'Call from' : 'Call to'} ${name}`}
      data-testid="call-card"
      data-status={status}
    >
      <header className="call-card__who">
        <strong className="call-card__name" data-testid="call-name">
          {name}
        </strong>
        {detail && <span className="call-card__detail">{detail}</span>}
      </header>
      <p className="call-card__status" role="status" data-testid="call-status">
        {STATUS_TEXT[status]}
        {duration !== null && status !== 'ended' && (
          <span className="call-card__timer" data-testid="call-timer">
            {' '}
            {formatDuration(duration)}
          </span>
        )}
      </p>
      {status === 'ended' && (
        <p className="call-card__ended" data-testid="call-ended">
          {error ?? endMessage}
          {duration !== null && ` (${formatDuration(duration)})`}
        </p>
      )}
      <div className="call-card__actions">
        {status === 'incoming' && (
          <>
            <button
              type="button"
              className="button button--accept"
              onClick={() => call.send({ type: 'call.accept' })}
            >
              Accept
            </button>
            <button
              type="button"
              className="button button--danger"
              onClick={() => call.send({ type: 'call.reject' })}
            >
              Reject
            </button>
          </>
        )}
        {(status === 'open' || status === 'reconnecting') && (
          <>
            <button
              type="button"
              className="button"
              aria-pressed={muted}
              onClick={() => call.send({ type: muted ? 'call.unmute' : 'call.mute' })}
            >
              {muted ? 'Unmute' : 'Mute'}
            </button>
            <button
              type="button"
              className="button"
              aria-expanded={keypad}
              onClick={() => setKeypad((k) => !k)}
            >
              Keypad
            </button>
          </>
        )}
        {(status === 'connecting' ||
          status === 'ringing' ||
          status === 'answering' ||
          status === 'open' ||
          status === 'reconnecting') && (
          <button
            type="button"
            className="button button--danger"
            onClick={() => call.send({ type: 'call.hangUp' })}
          >
            Hang up
          </button>
        )}
        {status === 'ended' && (
          <button type="button" className="button" onClick={onDismiss}>
            Dismiss
          </button>
        )}
      </div>
      {keypad && (
        <div className="keypad" role="group" aria-label="Keypad">
          <output className="keypad__digits" aria-live="polite">
            {digits}
          </output>
          {KEYS.map((key) => (
            <button
              key={key}
              type="button"
              className="keypad__key"
              onClick={() => call.send({ type: 'call.digits', digits: key })}
            >
              {key}
            </button>
          ))}
        </div>
      )}
    </article>
  );
}
