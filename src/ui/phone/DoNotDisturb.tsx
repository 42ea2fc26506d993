import { useSelector } from '@xstate/react';
import { useEffect, useState } from 'react';
import { selectUser } from '../../machines/session.selectors';
import {
  selectDocumentData,
  selectDocumentError,
  selectDocumentStatus,
} from '../../machines/syncDocument.selectors';
import { useSessionActor } from '../app/actors';
import { useContainerSelector, useSyncDocument } from '../sync/containers';

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
  const settings = useSyncDocument(`settings:${identity}`, { data: {} });
  const status = useContainerSelector(settings, selectDocumentStatus, 'opening');
  const data = useContainerSelector(settings, selectDocumentData, null);
  const error = useContainerSelector(settings, selectDocumentError, null);
  const saved = data?.doNotDisturb === true;
  // What the person just chose, shown at once while the save is on its way; the saved value takes
  // over when it arrives, and a refused save falls back to it (with the reason below).
  const [chosen, setChosen] = useState<boolean | null>(null);
  useEffect(() => {
    if (chosen !== null && (chosen === saved || error)) setChosen(null);
  }, [chosen, saved, error]);
  const on = chosen ?? saved;
  return (
    <div className="dnd">
      <label className="dnd__label">
        <input
          type="checkbox"
          checked={on}
          disabled={status !== 'ready'}
          aria-busy={chosen !== null}
          onChange={(e) => {
            const next = e.target.checked;
            setChosen(next);
            settings?.send({ type: 'document.update', data: { doNotDisturb: next } });
          }}
          data-testid="dnd-toggle"
        />{' '}
        Do not disturb
      </label>
      {error && (
        <p className="softphone__problem" role="alert">
          Do not disturb could not be saved: {error.message}
        </p>
      )}
    </div>
  );
}
