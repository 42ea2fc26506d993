/**
 * A create screen's form state, the {@link FormState} its form shares with the edit screen: the
 * draft, errors beside the fields once a save was asked for (following the typing after that), the
 * busy state while the mutator runs, and its refusal: a field the contract refused (WriteRefused)
 * beside that field, anything else as the form's error. Nothing typed is lost when a save is
 * refused. After the create, a toast and `onCreated`.
 */
import { useEffect, useRef, useState } from 'react';
import { WriteRefused } from '../../../app/mutators/core';
import type { FieldErrors } from '../../../machines/editor.machine';
import { useToastActor } from '../../app/actors';
import type { FormState } from './form';

export const NOT_CONNECTED =
  'Still connecting to the team’s data; it is saved as soon as that is done.';

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
  /** A save asked for before `create` could run: it runs as soon as it can, checked again then. */
  const [waiting, setWaiting] = useState(false);

  function run(mutate: (value: V) => Promise<R>) {
    setFormError(null);
    mutate(draft).then((created) => {
      toast.send({ type: 'toast.show', message: savedMessage(draft), toastType: 'success' });
      onCreated(created);
    }, refused);
  }

  // The save asked for while connecting goes ahead once it can, checked against what is now known.
  const latest = useRef({ validate, draft, run });
  latest.current = { validate, draft, run };
  useEffect(() => {
    if (!waiting || create === null) return;
    setWaiting(false);
    const found = latest.current.validate(latest.current.draft);
    setErrors(found);
    if (Object.keys(found).length > 0) {
      setBusy(false);
      setFormError(null);
      return;
    }
    latest.current.run(create);
  }, [waiting, create]);

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
      if (Object.keys(found).length > 0) return found;
      setBusy(true);
      if (create === null) {
        setWaiting(true);
        setFormError(notReady);
        return found;
      }
      run(create);
      return found;
    },
  };
}
