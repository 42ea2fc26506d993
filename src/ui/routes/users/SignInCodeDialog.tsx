import { useId, useState } from 'react';
import { issueSignInCode } from '../../../app/mutators/users';
import type { SignInCode } from '../../../contracts/api';
import { Modal } from '../../components/Modal';
import { useApiClient } from '../../app/actors';
import { formatClock } from './sign-in-code';

/**
 * An admin issues a colleague's one-time sign-in code (for a browser where they have not signed in
 * before) and passes it on; the server's terminal stays the fallback. Issuing replaces any code
 * waiting for them, so it is a button in the dialog, not the row's.
 */
export function SignInCodeDialog({
  identity,
  name,
  onClose,
}: {
  identity: string;
  name: string;
  onClose: () => void;
}) {
  const api = useApiClient();
  const uid = useId();
  const [issued, setIssued] = useState<SignInCode | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  async function issue() {
    setBusy(true);
    setProblem(null);
    try {
      setIssued(await issueSignInCode(api, identity));
    } catch (error) {
      setProblem(
        `No code was issued: ${error instanceof Error ? error.message : String(error)}. Try again.`,
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <Modal labelledBy={`${uid}-title`} onClose={onClose} className="sign-in-code">
      <h2 id={`${uid}-title`}>Sign-in code for {name}</h2>
      {issued === null ? (
        <p>
          On a browser where {name} has not signed in before, Switchboard asks for a one-time code.
          Issue one here and give it only to them; it works once, for 10 minutes, and replaces any
          code they were waiting for.
        </p>
      ) : (
        <>
          <p>
            Give this code only to {name}. They enter it after their name and email; it works once,
            until {formatClock(issued.expiresAt)}.
          </p>
          <p className="sign-in-code__code">
            <output data-testid="sign-in-code" aria-label={`Sign-in code for ${name}`}>
              {issued.code}
            </output>
          </p>
        </>
      )}
      {problem !== null && (
        <p className="field__error" role="alert">
          {problem}
        </p>
      )}
      <div className="dialog-actions">
        <button
          type="button"
          className={issued === null ? 'button button--primary' : 'button'}
          disabled={busy}
          onClick={() => void issue()}
        >
          {busy ? 'Issuing…' : issued === null ? 'Issue a code' : 'Issue a new code'}
        </button>
        <button type="button" className="button" onClick={onClose} autoFocus={issued !== null}>
          Close
        </button>
      </div>
    </Modal>
  );
}
