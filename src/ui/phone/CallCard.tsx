import { useSelector } from '@xstate/react';
import { useEffect, useRef, useState } from 'react';
import {
  Grid3x3,
  Mic,
  MicOff,
  Pause,
  Phone,
  PhoneForwarded,
  PhoneIncoming,
  PhoneOff,
  SquareParking,
} from 'lucide-react';
import {
  sameCallSummary,
  selectCallSummary,
  summaryDuration,
  type CallStatus,
  type CallSummary,
} from '../../machines/call.selectors';
import { stateValueText } from '../../machines/stateValue';
import type { MirrorCommand } from '../../io/voice/mirror';
import { useNow } from '../components/clock';
import type { CallActor } from '../../machines/device.setup';
import { formatDuration } from '../components/duration';
import { CallControl } from './CallControl';
import { QualityIndicator } from './QualityIndicator';
import { TransferForm } from './TransferForm';
import { useCallFocus } from './focus';
import { useKeypadKeys } from './useShortcuts';
import { remoteParty } from '../names/names';
import { useNames } from '../names/useNames';
import { useCallRowReason } from './rowReason';

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

/** A call held by this tab's phone. */
export function CallCard({ call, onDismiss }: { call: CallActor; onDismiss: () => void }) {
  const summary = useSelector(call, selectCallSummary, sameCallSummary);
  const state = useSelector(call, (s) => stateValueText(s.value));
  return (
    <CallCardView
      summary={summary}
      state={state}
      onCommand={(c) => call.send(c)}
      onDismiss={onDismiss}
    />
  );
}

/**
 * One call: who, its state and timer, and what can be done with it now. The same card shows a call
 * of this tab and, with `elsewhere`, a call of the tab that holds the phone (its commands go there,
 * and so does the audio). `state` is the call machine's full state (`data-state`), known only for a
 * call of this tab.
 */
export function CallCardView({
  summary,
  onCommand,
  onDismiss,
  elsewhere = false,
  state,
}: {
  summary: CallSummary;
  onCommand: (command: MirrorCommand) => void;
  onDismiss: () => void;
  elsewhere?: boolean;
  state?: string;
}) {
  const { status, remote, direction, muted, digits, hold, heldByThem, parking, problem } = summary;
  // The history row's sentence, once there, says best why a call that did not connect ended.
  const rowReason = useCallRowReason(
    summary.sid ?? summary.callId,
    summary.attempt,
    status === 'ended' && summary.endUnexplained,
  );
  const endText = rowReason ?? summary.endText;
  const { transferStatus, transfer } = summary;
  const [transferring, setTransferring] = useState(false);
  const transferBusy = transferStatus !== 'idle';
  const inCall = status === 'open' || status === 'reconnecting';
  const now = useNow(1000, status === 'open' || status === 'reconnecting');
  const duration = summaryDuration(summary, now);
  const [keypad, setKeypad] = useState(false);
  // Names, never ids: the colleague, group or contact behind the address (src/ui/names).
  const names = useNames();
  const { name, detail } = remoteParty(names, remote);
  const transferTo = transfer ? names.typed(transfer.to).name : '';

  useEffect(() => {
    if (status === 'ended') setKeypad(false);
  }, [status]);
  useEffect(() => {
    if (transferStatus !== 'idle') setTransferring(false);
  }, [transferStatus]);
  // Focus after a change (focus.ts), and the open keypad's typed digits.
  const cardRef = useRef<HTMLElement>(null);
  useCallFocus(cardRef, status, `${status}|${hold}|${parking}|${transferStatus}|${transferring}`);
  useKeypadKeys(keypad && inCall, (digit) => onCommand({ type: 'call.digits', digits: digit }));

  const statusLine = (
    <p className="call-card__status" role="status" data-testid="call-status">
      {status === 'incoming' && <PhoneIncoming aria-hidden="true" focusable="false" size={18} />}
      {status === 'incoming' && summary.ringBack ? 'Call coming back' : STATUS_TEXT[status]}
      {duration !== null && status !== 'ended' && (
        <span className="call-card__timer" data-testid="call-timer">
          {' '}
          {formatDuration(duration)}
        </span>
      )}
    </p>
  );

  return (
    <article
      ref={cardRef}
      className={`call-card call-card--${status}`}
      aria-label={`${direction === 'incoming' ? 'Call from' : 'Call to'} ${name}`}
      data-testid="call-card"
      data-status={status}
      data-state={state}
      data-call-id={summary.callId}
      data-elsewhere={elsewhere || undefined}
    >
      {status === 'incoming' && statusLine}
      <header className="call-card__who">
        <strong className="call-card__name" data-testid="call-name">
          {name}
        </strong>
        {detail && <span className="call-card__detail">{detail}</span>}
        {summary.group && (
          <span className="call-card__detail" data-testid="call-group">
            via {summary.group}
          </span>
        )}
      </header>
      {status === 'incoming' && summary.ringBack && (
        <p className="call-card__reason" data-testid="call-ringback">
          {summary.ringBack}
        </p>
      )}
      {status !== 'incoming' && statusLine}
      {summary.routingNote && status !== 'ended' && (
        <p className="call-card__hold" data-testid="call-routing">
          {summary.routingNote}
        </p>
      )}
      {inCall && <QualityIndicator warnings={summary.warnings} />}
      {inCall && hold !== 'off' && (
        <p className="call-card__hold" data-testid="call-hold">
          {hold === 'holding'
            ? 'Putting them on hold…'
            : hold === 'resuming'
              ? 'Taking them off hold…'
              : 'On hold: they hear music, and you hear nothing from them.'}
        </p>
      )}
      {inCall && heldByThem && (
        <p className="call-card__hold" data-testid="call-held-by-them">
          {name} put you on hold. Stay on the line.
        </p>
      )}
      {inCall && parking && (
        <p className="call-card__hold" data-testid="call-parking">
          Parking the call…
        </p>
      )}
      {inCall && transferBusy && transfer && (
        <div className="call-card__transfer" data-testid="call-transfer">
          <p className="call-card__hold">
            {transferStatus === 'sending'
              ? `Transferring to ${transferTo}…`
              : transferStatus === 'completing'
                ? `Handing the call to ${transferTo}…`
                : transferStatus === 'cancelling'
                  ? `Cancelling the transfer to ${transferTo}…`
                  : transfer.answered
                    ? `Talking to ${transferTo}. ${name} is waiting with music.`
                    : `Calling ${transferTo}… ${name} is waiting with music.`}
          </p>
          {transferStatus === 'consulting' && (
            <div className="call-card__actions">
              <button
                type="button"
                className="button button--primary"
                disabled={!transfer.answered}
                onClick={() => onCommand({ type: 'call.completeTransfer' })}
              >
                Complete transfer
              </button>
              <button
                type="button"
                className="button"
                onClick={() => onCommand({ type: 'call.cancelTransfer' })}
              >
                Cancel transfer
              </button>
            </div>
          )}
        </div>
      )}
      {inCall && problem && (
        <p className="call-card__problem" role="alert" data-testid="call-problem">
          {problem}
        </p>
      )}
      {elsewhere && status !== 'ended' && (
        <p className="call-card__elsewhere">The sound is in your other Switchboard tab.</p>
      )}
      {status === 'ended' && (
        <p className="call-card__ended" data-testid="call-ended">
          {endText}
          {duration !== null && ` (${formatDuration(duration)})`}
        </p>
      )}
      <div className="call-card__controls">
        {status === 'incoming' && (
          <>
            <CallControl
              icon={Phone}
              label="Accept"
              tone="accept"
              action="answer"
              onClick={() => onCommand({ type: 'call.accept' })}
            />
            <CallControl
              icon={PhoneOff}
              label="Reject"
              tone="danger"
              action="hangUp"
              onClick={() => onCommand({ type: 'call.reject' })}
            />
          </>
        )}
        {inCall && (
          <>
            <CallControl
              icon={muted ? MicOff : Mic}
              label="Mute"
              action="mute"
              pressed={muted}
              description={muted ? 'Muted: they cannot hear you' : 'Mute your microphone'}
              onClick={() => onCommand({ type: muted ? 'call.unmute' : 'call.mute' })}
            />
            <CallControl
              icon={Pause}
              label="Hold"
              action="hold"
              pressed={hold === 'onHold' || hold === 'resuming'}
              description={hold === 'off' ? 'Put them on hold' : 'On hold: press to resume'}
              disabled={hold === 'holding' || hold === 'resuming' || parking || transferBusy}
              onClick={() => onCommand({ type: hold === 'off' ? 'call.hold' : 'call.resume' })}
            />
            <CallControl
              icon={SquareParking}
              label="Park"
              action="park"
              description="Park the call on the Hold screen, where anyone can pick it up"
              disabled={parking || hold === 'holding' || hold === 'resuming' || transferBusy}
              onClick={() => onCommand({ type: 'call.park' })}
            />
            <CallControl
              icon={PhoneForwarded}
              label="Transfer"
              expanded={transferring}
              disabled={parking || transferBusy || hold === 'holding' || hold === 'resuming'}
              onClick={() => setTransferring((t) => !t)}
            />
            <CallControl
              icon={Grid3x3}
              label="Keypad"
              expanded={keypad}
              onClick={() => setKeypad((k) => !k)}
            />
          </>
        )}
        {(status === 'connecting' || status === 'ringing' || status === 'answering' || inCall) && (
          <CallControl
            icon={PhoneOff}
            label="Hang up"
            tone="danger"
            action="hangUp"
            onClick={() => onCommand({ type: 'call.hangUp' })}
          />
        )}
        {status === 'ended' && (
          <button type="button" className="button" onClick={onDismiss}>
            Dismiss
          </button>
        )}
      </div>
      {transferring && inCall && !transferBusy && (
        <TransferForm onTransfer={(to, mode) => onCommand({ type: 'call.transfer', to, mode })} />
      )}
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
              onClick={() => onCommand({ type: 'call.digits', digits: key })}
            >
              {key}
            </button>
          ))}
        </div>
      )}
    </article>
  );
}
