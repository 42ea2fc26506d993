import { useSelector } from '@xstate/react';
import { useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { selectUser } from '../../../machines/session.selectors';
import {
  selectDocumentData,
  selectDocumentError,
  selectDocumentStatus,
} from '../../../machines/syncDocument.selectors';
import { selectMapItem } from '../../../machines/syncMap.selectors';
import { SETTINGS_DOCUMENT, SHARED_MAP } from '../../../app/containers';
import {
  chooseAudioDevice,
  setRingtoneVolume,
  setShortcuts,
  type AudioDeviceChoice,
} from '../../../app/mutators/settings';
import { renameMe } from '../../../app/mutators/users';
import { SETTINGS, USERS } from '../../../contracts/objects';
import { settingsRecord } from '../../../contracts/records/settings';
import { userRecord } from '../../../contracts/records/user';
import { useApiClient, useSessionActor } from '../../app/actors';
import { Screen } from '../../components/Screen';
import { CallNotifications } from '../../phone/CallNotifications';
import { DoNotDisturb } from '../../phone/DoNotDisturb';
import { usePhone } from '../../phone/usePhone';
import {
  comboOf,
  DEFAULT_SHORTCUTS,
  SHORTCUT_LABELS,
  shortcutProblem,
  shortcutsFrom,
} from '../../phone/shortcuts';
import { useContainerSelector, useSyncDocument, useSyncMap } from '../../sync/useSyncContainers';
import { writeProblem } from '../../sync/writeProblem';
import './settings.css';
import type { AudioDevice } from '../../../io/voice/audio';
import { SHORTCUT_ACTIONS, type ShortcutAction } from '../../../contracts/records/settings';

/** /setting: the signed-in person's own settings (their name, calls, audio). */
export function Component() {
  const session = useSessionActor();
  const user = useSelector(session, selectUser);
  if (!user) return null;
  return (
    <Screen title="Settings">
      <DisplayName identity={user.identity} signedInAs={user.name} />
      <section className="settings__section" aria-labelledby="settings-calls">
        <h2 id="settings-calls">Calls</h2>
        <DoNotDisturb />
        {/* Its own label: the sentence below is about notifications, not do not disturb. */}
        <div
          className="settings__group"
          role="group"
          aria-labelledby="settings-notifications"
          data-testid="settings-notifications"
        >
          <h3 id="settings-notifications" className="settings__label">
            Call notifications
          </h3>
          <CallNotifications always />
        </div>
      </section>
      <AudioSettings identity={user.identity} />
      <ShortcutSettings identity={user.identity} />
    </Screen>
  );
}

/** The name colleagues see (the `users` directory, written by the server through PUT /api/me/name). */
function DisplayName({ identity, signedInAs }: { identity: string; signedInAs: string }) {
  const api = useApiClient();
  const users = useSyncMap(USERS.name, SHARED_MAP);
  const select = useMemo(() => selectMapItem(identity), [identity]);
  const item = useContainerSelector(users, select, undefined);
  const current = (item && userRecord.read(item.data)?.name) ?? signedInAs;
  const [name, setName] = useState<string | null>(null);
  const [state, setState] = useState<
    { kind: 'idle' } | { kind: 'saving' } | { kind: 'saved' } | { kind: 'failed'; message: string }
  >({ kind: 'idle' });
  const id = useId();
  const shown = name ?? current;

  async function save(event: FormEvent) {
    event.preventDefault();
    if (shown.trim() === '') {
      setState({ kind: 'failed', message: 'Type the name colleagues should see.' });
      return;
    }
    setState({ kind: 'saving' });
    try {
      await renameMe(api, shown);
      setName(null);
      setState({ kind: 'saved' });
    } catch (error) {
      // What was typed stays in the box, to fix and save again.
      setState({
        kind: 'failed',
        message: error instanceof Error ? error.message : 'The name could not be saved.',
      });
    }
  }

  return (
    <section className="settings__section" aria-labelledby="settings-name">
      <h2 id="settings-name">Your name</h2>
      <form className="settings__row" onSubmit={(e) => void save(e)}>
        <div className="field">
          <label htmlFor={`${id}-name`}>Display name</label>
          <input
            id={`${id}-name`}
            value={shown}
            maxLength={80}
            onChange={(e) => {
              setName(e.target.value);
              setState({ kind: 'idle' });
            }}
            aria-invalid={state.kind === 'failed'}
            aria-describedby={state.kind === 'failed' ? `${id}-error` : undefined}
            data-testid="settings-name"
          />
        </div>
        <button
          type="submit"
          className="button"
          disabled={state.kind === 'saving' || name === null || name === current}
        >
          {state.kind === 'saving' ? 'Saving…' : 'Save name'}
        </button>
        {state.kind === 'saved' && (
          <p role="status" className="settings__saved">
            Saved. Colleagues see the new name.
          </p>
        )}
        {state.kind === 'failed' && (
          <p id={`${id}-error`} role="alert" className="field__error">
            {state.message}
          </p>
        )}
      </form>
    </section>
  );
}

type Devices = { inputs: AudioDevice[]; outputs: AudioDevice[]; outputSelection: boolean };

/** Microphone, speaker, ringtone device and volume, saved in the person's settings document. */
function AudioSettings({ identity }: { identity: string }) {
  const { runtime } = usePhone();
  const settings = useSyncDocument(SETTINGS.name(identity), SETTINGS_DOCUMENT);
  const status = useContainerSelector(settings, selectDocumentStatus, 'opening');
  const data = useContainerSelector(settings, selectDocumentData, null);
  const openError = useContainerSelector(settings, selectDocumentError, null);
  const saved = settingsRecord.read(data ?? {});
  const [refused, setRefused] = useState<string | null>(null);
  const error = refused ?? openError?.message ?? null;
  const [devices, setDevices] = useState<Devices | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [volume, setVolume] = useState<number | null>(null);
  const id = useId();

  useEffect(() => {
    if (!runtime) return;
    let current = true;
    const load = () => {
      runtime.audio.devices().then(
        (d) => current && setDevices(d),
        () => current && setProblem('The browser did not list its audio devices.'),
      );
    };
    load();
    navigator.mediaDevices?.addEventListener?.('devicechange', load);
    return () => {
      current = false;
      navigator.mediaDevices?.removeEventListener?.('devicechange', load);
    };
  }, [runtime]);

  const ready = status === 'ready';
  const save = (write: (doc: NonNullable<typeof settings>) => Promise<void>) => {
    if (!settings) return;
    setRefused(null);
    write(settings).catch((failure: unknown) => setRefused(writeProblem(failure)));
  };
  const saveVolume = () => {
    if (volume !== null) save((doc) => setRingtoneVolume(doc, volume));
  };
  const shownVolume = volume ?? saved.ringtoneVolume;

  const select = (key: AudioDeviceChoice, label: string, list: AudioDevice[]) => (
    <div className="field">
      <label htmlFor={`${id}-${key}`}>{label}</label>
      <select
        id={`${id}-${key}`}
        value={saved[key] ?? ''}
        disabled={!ready}
        onChange={(e) => {
          const chosen = e.target.value === '' ? null : e.target.value;
          save((doc) => chooseAudioDevice(doc, key, chosen));
        }}
        data-testid={`settings-${key}`}
      >
        <option value="">The browser&apos;s default</option>
        {list.map((d) => (
          <option key={d.id} value={d.id}>
            {d.label}
          </option>
        ))}
        {saved[key] !== null && !list.some((d) => d.id === saved[key]) && (
          <option value={saved[key]}>A device that is not connected now</option>
        )}
      </select>
    </div>
  );

  return (
    <section className="settings__section" aria-labelledby="settings-audio">
      <h2 id="settings-audio">Audio</h2>
      {!runtime && <p className="softphone__hint">The audio devices show once the phone starts.</p>}
      {devices && (
        <>
          {select('microphoneId', 'Microphone', devices.inputs)}
          {devices.outputSelection ? (
            <>
              {select('speakerId', 'Speaker (calls)', devices.outputs)}
              {select('ringtoneId', 'Ringtone device', devices.outputs)}
            </>
          ) : (
            <p className="softphone__hint" data-testid="settings-no-output">
              This browser plays calls and the ringtone on its default speaker: it cannot choose
              another one.
            </p>
          )}
        </>
      )}
      <div className="field">
        <label htmlFor={`${id}-volume`}>Ringtone volume: {shownVolume}%</label>
        <input
          id={`${id}-volume`}
          type="range"
          min={0}
          max={100}
          step={5}
          value={shownVolume}
          disabled={!ready}
          onChange={(e) => setVolume(Number(e.target.value))}
          onPointerUp={saveVolume}
          onKeyUp={saveVolume}
          data-testid="settings-volume"
        />
      </div>
      <button
        type="button"
        className="button"
        disabled={!runtime}
        onClick={() => {
          setProblem(null);
          runtime?.audio
            .test(saved.speakerId, shownVolume)
            .catch((e: unknown) =>
              setProblem(
                `The test tone could not play: ${e instanceof Error ? e.message : String(e)}`,
              ),
            );
        }}
      >
        Play a test tone
      </button>
      {problem && (
        <p role="alert" className="field__error">
          {problem}
        </p>
      )}
      {error && (
        <p role="alert" className="field__error">
          Your audio settings could not be saved: {error}
        </p>
      )}
    </section>
  );
}

/**
 * Keyboard shortcuts: each action's combination, changed by pressing the new one (Escape cancels);
 * a combination another action has, one without a modifier, or one the browser keeps is refused
 * with the reason and nothing changes.
 */
function ShortcutSettings({ identity }: { identity: string }) {
  const settings = useSyncDocument(SETTINGS.name(identity), SETTINGS_DOCUMENT);
  const status = useContainerSelector(settings, selectDocumentStatus, 'opening');
  const data = useContainerSelector(settings, selectDocumentData, null);
  const shortcuts = shortcutsFrom(data);
  const [editing, setEditing] = useState<ShortcutAction | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const ready = status === 'ready';
  const save = (next: typeof shortcuts) => {
    if (!settings) return;
    setShortcuts(settings, next).catch((failure: unknown) =>
      setProblem(`The shortcuts could not be saved: ${writeProblem(failure)}`),
    );
  };

  return (
    <section className="settings__section" aria-labelledby="settings-shortcuts">
      <h2 id="settings-shortcuts">Keyboard shortcuts</h2>
      <table className="table settings__shortcuts">
        <tbody>
          {SHORTCUT_ACTIONS.map((action) => (
            <tr key={action} data-testid={`shortcut-${action}`}>
              <th scope="row">{SHORTCUT_LABELS[action]}</th>
              <td>
                <kbd>{shortcuts[action]}</kbd>
              </td>
              <td>
                {editing === action ? (
                  <button
                    type="button"
                    className="button"
                    autoFocus
                    data-shortcut-capture
                    onBlur={() => setEditing(null)}
                    onKeyDown={(e) => {
                      e.preventDefault();
                      e.stopPropagation();
                      if (e.key === 'Escape') {
                        setEditing(null);
                        return;
                      }
                      const combo = comboOf(e);
                      if (combo === null) return;
                      const refused = shortcutProblem(shortcuts, action, combo);
                      setProblem(refused);
                      if (refused === null) {
                        save({ ...shortcuts, [action]: combo });
                        setEditing(null);
                      }
                    }}
                  >
                    Press the new keys… (Escape cancels)
                  </button>
                ) : (
                  <button
                    type="button"
                    className="button button--quiet"
                    disabled={!ready}
                    aria-label={`Change the shortcut to ${SHORTCUT_LABELS[action].toLowerCase()}`}
                    onClick={() => {
                      setProblem(null);
                      setEditing(action);
                    }}
                  >
                    Change
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <button
        type="button"
        className="button button--quiet"
        disabled={!ready}
        onClick={() => {
          setProblem(null);
          save(DEFAULT_SHORTCUTS);
        }}
      >
        Back to the defaults
      </button>
      {problem && (
        <p role="alert" className="field__error" data-testid="shortcut-problem">
          {problem}
        </p>
      )}
    </section>
  );
}
