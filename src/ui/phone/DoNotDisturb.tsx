import { useSelector } from '@xstate/react';
import { useEffect, useState } from 'react';
import { SETTINGS_DOCUMENT } from '../../app/containers';
import { setDoNotDisturb } from '../../app/mutators/settings';
import { SETTINGS } from '../../contracts/objects';
import { settingsRecord } from '../../contracts/records/settings';
import { selectUser } from '../../machines/session.selectors';
import {
  selectDocumentData,
  selectDocumentError,
  selectDocumentStatus,
} from '../../machines/syncDocument.selectors';
import { useSessionActor } from '../app/actors';
import { useContainerSelector, useSyncDocument } from '../sync/useSyncContainers';
import { writeProblem } from '../sync/writeProblem';

/**
 * Do not disturb, kept in the person's own `settings:{identity}` document (private to them): the
 * voice service reads it and turns callers away with "not taking calls" instead of ringing.
 */
export function DoNotDisturb() {
  const session = useSessionActor();
  const identity = useSelector(session, selectUser)?.identity ?? null;
  return identity === null ? null : <Toggle identity={identity} />;
}

function Toggle({ identity }: { identity: string }) {
  const settings = useSyncDocument(SETTINGS.name(identity), SETTINGS_DOCUMENT);
  const status = useContainerSelector(settings, selectDocumentStatus, 'opening');
  const data = useContainerSelector(settings, selectDocumentData, null);
  const error = useContainerSelector(settings, selectDocumentError, null);
  const saved = settingsRecord.read(data ?? {}).doNotDisturb;
  // What the person just chose, shown at once while the save is on its way; the saved value takes
  // over when it arrives, and a refused save falls back to it (with the reason below).
  const [chosen, setChosen] = useState<boolean | null>(null);
  const [refused, setRefused] = useState<string | null>(null);
  useEffect(() => {
    if (chosen !== null && (chosen === saved || error)) setChosen(null);
  }, [chosen, saved, error]);
  const on = chosen ?? saved;
  const problem = refused ?? error?.message ?? null;
  return (
    <div className="dnd">
      <label className="dnd__label">
        <input
          type="checkbox"
          checked={on}
          disabled={status !== 'ready'}
          aria-busy={chosen !== null}
          onChange={(e) => {
            if (!settings) return;
            const next = e.target.checked;
            setChosen(next);
            setRefused(null);
            setDoNotDisturb(settings, next).catch((failure: unknown) => {
              // Refused (by the contract, or by the service): back to what is saved, and why.
              setChosen(null);
              setRefused(writeProblem(failure));
            });
          }}
          data-testid="dnd-toggle"
        />{' '}
        Do not disturb
      </label>
      {problem && (
        <p className="softphone__problem" role="alert">
          Do not disturb could not be saved: {problem}
        </p>
      )}
    </div>
  );
}
