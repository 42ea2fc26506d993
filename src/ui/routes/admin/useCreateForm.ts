/**
 * A create screen's form state, the {@link FormState} its form shares with the edit screen: the
 * draft, errors beside the fields once a save was asked for (following the typing after that), the
 * busy state while the mutator runs, and its refusal: a field the contract refused (WriteRefused)
 * beside that field, anything else as the form's error. Nothing typed is lost when a save is
 * refused. After the create, a toast and `onCreated`.
 */
import { useState } from 'react';
import { WriteRefused } from '../../../app/mutators/core';
import type { FieldErrors } from '../../../machines/editor.machine';
import { useToastActor } from '../../app/actors';
import type { FormState } from './form';

export const NOT_CONNECTED = 'Still connecting to the team’s data; try again in a moment.';

export function useCreateForm<V, R = void>({
  initial,
  validate,
  fields,
  create,
  notReady = NOT_CONNECTED,
  savedMessage,
  onCreated,
}: {
  initial: () => V;
  validate: (value: V) => FieldErrors;
  /** The fields the form shows: a refusal naming one of them is shown beside it. */
  fields: readonly string[];
  /**
   * Runs the mutator, resolving with what `onCreated` needs (the new id); null while it cannot run
   * yet (`notReady` then says why).
   */
  create: ((value: V) => Promise<R>) | null;
  notReady?: string;
  /** The toast after the create: "Front desk was created." */
  savedMessage: (value: V) => string;
  onCreated: (created: R) => void;
}): FormState<V> {
  const toast = useToastActor();
  const [draft, setDraft] = useState<V>(initial);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);

  function refused(error: unknown) {
    setBusy(false);
    const field = error instanceof WriteRefused ? (error.field.split('.')[0] ?? '') : '';
    if (error instanceof WriteRefused && fields.includes(field))
      setErrors({ [field]: error.reason });
    else setFormError(error instanceof Error ? error.message : String(error));
  }

  return {
    draft,
    errors,
    busy,
    formError,
    change: (value) => {
      setDraft(value);
      // Once shown, errors follow the typing.
      if (Object.keys(errors).length > 0) setErrors(validate(value));
    },
    save: () => {
      const found = validate(draft);
      setErrors(found);
      if (Object.keys(found).length > 0 || create === null) {
        if (create === null) setFormError(notReady);
        return found;
      }
      setBusy(true);
      setFormError(null);
      create(draft).then((created) => {
        toast.send({ type: 'toast.show', message: savedMessage(draft), toastType: 'success' });
        onCreated(created);
      }, refused);
      return found;
    },
  };
}
