import { useSelector } from '@xstate/react';
import { useCallback, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { selectUser } from '../../machines/session.selectors';
import type { MirrorCommand } from '../../io/voice/mirror';
import { useSessionActor } from '../app/actors';
import { ShortcutHintsContext, summariesOf, useShortcuts } from './useShortcuts';
import { ShortcutsHelp } from './ShortcutsHelp';
import { stateValueText } from '../../machines/stateValue';
import type { DeviceActor, VoiceRuntime } from '../../io/voice/client';
import {
  selectCalls,
  selectDeviceError,
  selectDeviceStatus,
  type DeviceStatus,
} from '../../machines/device.selectors';
import { CallCard, CallCardView } from './CallCard';
import { CallNotifications } from './CallNotifications';
import { DialBox } from './DialBox';
import { DoNotDisturb } from './DoNotDisturb';
import { usePhone } from './usePhone';
import { useCallSideEffects } from './side-effects';
import { useLeaveWarning, useLiveCall, useRingingCaller, useRingingFlash } from './attention';
import type { CallSummary } from '../../machines/call.selectors';
import './phone.css';

const STATUS_TEXT: Record<DeviceStatus, string> = {
  follower: 'The phone is open in another tab.',
  acquiring: 'Taking the phone over…',
  starting: 'Starting the phone…',
  registering: 'Connecting the phone…',
  registered: 'Ready for calls',
  checking: 'Checking the phone…',
  reconnecting: 'Reconnecting the phone…',
  error: 'The phone is not working.',
  releasing: 'Handing the phone to another tab…',
  signingOut: 'Signing out…',
  signedOut: 'Signed out',
};

const NO_CALLS: readonly CallSummary[] = [];

/**
 * The softphone panel, mounted in the main layout so calls survive navigation: the phone's status,
 * the dial box (DialBox.tsx: colleagues, groups, contacts and numbers), and a card per call with its
 * controls.
 */
export function Softphone() {
  const { runtime, problem } = usePhone();
  return (
    <section
      id="phone"
      tabIndex={-1}
      className="softphone"
      aria-label="Phone"
      data-testid="softphone"
    >
      {problem && (
        <p className="softphone__problem" role="alert">
          {problem}
        </p>
      )}
      {!runtime && !problem && (
        <p className="softphone__status" role="status">
          Starting the phone…
        </p>
      )}
      {runtime && (
        <DevicePanel device={runtime.device} dial={runtime.dial} mirror={runtime.mirror} />
      )}
    </section>
  );
}

function DevicePanel({
  device,
  dial,
  mirror,
}: {
  device: DeviceActor;
  dial: (to: string, displayName?: string | null) => void;
  mirror: VoiceRuntime['mirror'];
}) {
  const status = useSelector(device, selectDeviceStatus);
  const state = useSelector(device, (s) => stateValueText(s.value));
  const error = useSelector(device, selectDeviceError);
  const calls = useSelector(device, selectCalls);
  const entries = useMemo(() => Object.entries(calls), [calls]);
  const callActors = useMemo(() => Object.values(calls), [calls]);
  useCallSideEffects(entries);
  const identity = useSelector(useSessionActor(), selectUser)?.identity ?? '';
  const follower = status === 'follower';
  const shownCalls = useCallback(
    () => (follower ? mirror.getCalls() : summariesOf(entries)),
    [follower, mirror, entries],
  );
  const sendTo = useCallback(
    (callId: string, command: MirrorCommand) =>
      follower ? mirror.command(callId, command) : calls[callId]?.send(command),
    [follower, mirror, calls],
  );
  const dialInput = useRef<HTMLInputElement>(null);
  const focusDial = useCallback(() => dialInput.current?.focus(), []);
  const [help, setHelp] = useState(false);
  const showHelp = useCallback(() => setHelp(true), []);
  const hints = useShortcuts(identity, shownCalls, sendTo, focusDial, showHelp);
  const mirrored = useSyncExternalStore(mirror.subscribe, mirror.getCalls);
  useRingingFlash(useRingingCaller(entries, follower ? mirrored : NO_CALLS));
  useLeaveWarning(useLiveCall(entries));

  return (
    <ShortcutHintsContext value={hints}>
      {help && <ShortcutsHelp hints={hints} onClose={() => setHelp(false)} />}
      <p
        className={`softphone__status softphone__status--${status}`}
        role="status"
        data-testid="phone-status"
        data-status={status}
        data-state={state}
      >
        {STATUS_TEXT[status]}
      </p>
      {error && status !== 'registered' && (
        <p className="softphone__problem" role="alert" data-testid="phone-error">
          {error.message}
        </p>
      )}
      {status === 'error' && (
        <button
          type="button"
          className="button"
          onClick={() => device.send({ type: 'device.retry' })}
        >
          Try again
        </button>
      )}
      {status === 'follower' && (
        <button
          type="button"
          className="button"
          onClick={() => device.send({ type: 'device.takeOver' })}
        >
          Use the phone here
        </button>
      )}
      {/* Calls first: a ringing or live call is what the panel is for at that moment. */}
      <div className="softphone__calls">
        {entries.map(([id, call]) => (
          <CallCard
            key={id}
            call={call}
            onDismiss={() => device.send({ type: 'device.dismissCall', callId: id })}
          />
        ))}
        {status === 'follower' && <CallsElsewhere mirror={mirror} />}
      </div>
      {status === 'registered' && <DialBox dial={dial} calls={callActors} inputRef={dialInput} />}
      <DoNotDisturb />
      {status === 'registered' && (
        // Its own labelled part of the panel: it is about notifications, not do not disturb above it.
        <div className="softphone__notifications" role="group" aria-label="Call notifications">
          <CallNotifications />
        </div>
      )}
    </ShortcutHintsContext>
  );
}

/** The calls of the tab that holds the phone, shown in this one; its buttons act over there. */
function CallsElsewhere({ mirror }: { mirror: VoiceRuntime['mirror'] }) {
  const calls = useSyncExternalStore(mirror.subscribe, mirror.getCalls);
  const [dismissed, setDismissed] = useState<ReadonlySet<string>>(new Set());
  return (
    <>
      {calls
        .filter((call) => !(call.status === 'ended' && dismissed.has(call.callId)))
        .map((call) => (
          <CallCardView
            key={call.callId}
            summary={call}
            elsewhere
            onCommand={(command) => mirror.command(call.callId, command)}
            onDismiss={() => setDismissed((d) => new Set(d).add(call.callId))}
          />
        ))}
    </>
  );
}
