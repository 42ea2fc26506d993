import { useId, useState, type FormEvent } from 'react';
import { ApiError } from '../../../io/api/client';
import { useApiClient, useToastActor } from '../../app/actors';
import type { TeamMember } from './directory';
import { setExtension } from '../../../app/mutators/users';
import { checkExtension, extensionChangedMessage } from './roles';

/**
 * An admin's field for a person's extension on /users. It shows the live value from the `users` map
 * until the admin types; a refused change (taken, malformed) keeps what was typed, with the server's
 * reason next to the field. Escape puts the current extension back.
 */
export function ExtensionField({
  member,
  others,
}: {
  member: TeamMember;
  /** Everyone else on the team, for a quick check before asking the server. */
  others: readonly TeamMember[];
}) {
  const api = useApiClient();
  const toast = useToastActor();
  const id = useId();
  const [typed, setTyped] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const value = typed ?? member.extension ?? '';
  const changed = typed !== null && typed.trim() !== (member.extension ?? '');

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!changed || saving) return;
    const problem = checkExtension(value, member, others);
    if (problem) {
      setError(problem);
      return;
    }
    setSaving(true);
    setError(null);
    try {
      await setExtension(api, member.identity, value);
      setTyped(null);
      toast.send({
        type: 'toast.show',
        message: extensionChangedMessage(member.name, value),
        toastType: 'success',
      });
    } catch (e) {
      setError(
        e instanceof ApiError
          ? e.message
          : `The extension could not be changed: ${e instanceof Error ? e.message : String(e)}`,
      );
    } finally {
      setSaving(false);
    }
  }

  return (
    <form className="users__extension" onSubmit={(e) => void submit(e)} noValidate>
      <input
        className="users__extension-input"
        data-testid="user-extension-input"
        aria-label={`Extension of ${member.name}`}
        inputMode="numeric"
        autoComplete="off"
        size={7}
        value={value}
        disabled={saving}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => {
          setTyped(e.target.value);
          setError(null);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            setTyped(null);
            setError(null);
          }
        }}
      />
      {changed && (
        <button
          type="submit"
          className="button button--quiet"
          disabled={saving}
          aria-label={`Save the extension of ${member.name}`}
        >
          {saving ? 'Saving…' : 'Save'}
        </button>
      )}
      {error && (
        <p id={`${id}-error`} className="field__error" role="alert" data-testid="extension-error">
          {error}
        </p>
      )}
    </form>
  );
}
