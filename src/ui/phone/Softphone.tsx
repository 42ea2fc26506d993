import { useSelector } from '@xstate/react';
import {
  useCallback,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
  type FormEvent,
  type RefObject,
} from 'react';
import { selectUser } from '../../machines/session.selectors';
import type { MirrorCommand } from '../../io/voice/mirror';
import { useSessionActor } from '../app/actors';
import { ShortcutHintsContext, summariesOf, useShortcuts } from './useShortcuts';
import { ShortcutsHelp } from './ShortcutsHelp';
import { selectCallLive } from '../../machines/call.selectors';
import { stateValueText } from '../../machines/stateValue';
import type { DeviceActor, VoiceRuntime } from '../../io/voice/client';
import {
  selectCalls,
  selectDeviceError,
  selectDeviceStatus,
  type DeviceStatus,
} from '../../machines/device.selectors';
import { useContainerSelector, useSyncMap } from '../sync/containers';
import { SHARED_MAP } from '../../app/containers';
import { CONTACTS, USERS } from '../../contracts/objects';
import { userRecord } from '../../contracts/records/user';
import { selectMapItems } from '../../machines/syncMap.selectors';
import type { MapItem } from '../../machines/syncPorts';
import { CallCard, CallCardView } from './CallCard';
import { CallNotifications } from './CallNotifications';
import { DoNotDisturb } from './DoNotDisturb';
import { usePhone } from './phone';
import { contactNumbers, resolveDial, type Dialable, type DialableNumber } from './dial';
import { contactFromData } from '../routes/contacts/contact';
import { useCallSideEffects } from './side-effects';
import './phone.css';
import type { CallActor } from '../../machines/device.setup';

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

const NO_ITEMS: readonly MapItem[] = [];

/**
 * The softphone panel, mounted in the main layout so calls survive navigation: the phone's status,
 * a dial box that takes a colleague's name, an email, an extension-less identity or a number, and
 * a card per call with its controls.
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
  const users = useSyncMap(USERS.name, SHARED_MAP);
  const userItems = useContainerSelector(users, selectMapItems, NO_ITEMS);
  const people = useMemo<Dialable[]>(
    () =>
      userItems.map((item) => {
        const user = userRecord.read(item.data);
        return {
          identity: item.key,
          name: user?.name ?? item.key,
          email: user?.email ?? '',
          extension: user?.extension ?? null,
        };
      }),
    [userItems],
  );
  const entries = useMemo(() => Object.entries(calls), [calls]);
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
      {status === 'registered' && (
        <DialForm people={people} dial={dial} calls={entries} inputRef={dialInput} />
      )}
      <DoNotDisturb />
      {status === 'registered' && <CallNotifications />}
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
    </ShortcutHintsContext>
  );
}

function DialForm({
  people,
  dial,
  calls,
  inputRef,
}: {
  people: readonly Dialable[];
  dial: (to: string, displayName?: string | null) => void;
  calls: [string, CallActor][];
  inputRef: RefObject<HTMLInputElement | null>;
}) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  // Contacts are opened once the box is first used, not on every page load.
  const [searching, setSearching] = useState(false);
  const [numbers, setNumbers] = useState<readonly DialableNumber[]>([]);
  const listId = useId();
  const busy = calls.some(([, call]) => selectCallLive(call.getSnapshot()));

  function submit(event: FormEvent) {
    event.preventDefault();
    const target = resolveDial(text, people, numbers);
    if (target.kind === 'empty') {
      setProblem('Type a name, an extension, an email or a number to call.');
      return;
    }
    setProblem(null);
    dial(target.to, target.displayName);
    setText('');
  }

  return (
    <form className="dial" onSubmit={submit} aria-label="Dial">
      <label className="dial__label" htmlFor={`${listId}-input`}>
        Call
      </label>
      <input
        id={`${listId}-input`}
        className="dial__input"
        list={listId}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onFocus={() => setSearching(true)}
        placeholder="Name, extension or number"
        autoComplete="off"
        aria-describedby={problem ? `${listId}-problem` : undefined}
        data-testid="dial-input"
        ref={inputRef}
      />
      <datalist id={listId}>
        {people.map((p) => (
          <option key={p.identity} value={p.name}>
            {p.extension ? `${p.email} · ext. ${p.extension}` : p.email}
          </option>
        ))}
        {people.map((p) =>
          p.extension ? (
            <option key={`ext|${p.identity}`} value={p.extension}>
              {p.name}
            </option>
          ) : null,
        )}
        {numbers.map((n) => (
          <option key={`${n.label}|${n.number}`} value={n.label}>
            {n.number}
          </option>
        ))}
      </datalist>
      {searching && <ContactNumbers onChange={setNumbers} />}
      <button type="submit" className="button button--accept" disabled={busy}>
        Call
      </button>
      {problem && (
        <p id={`${listId}-problem`} className="dial__problem" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}

/** Reads the shared contacts for the dial box (renders nothing). */
function ContactNumbers({ onChange }: { onChange: (numbers: DialableNumber[]) => void }) {
  const contacts = useSyncMap(CONTACTS.name, SHARED_MAP);
  const items = useContainerSelector(contacts, selectMapItems, NO_ITEMS);
  useEffect(() => {
    onChange(contactNumbers(items.map((item) => contactFromData(item.data))));
  }, [items, onChange]);
  return null;
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
