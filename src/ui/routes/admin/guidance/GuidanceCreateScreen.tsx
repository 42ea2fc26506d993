import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useToastActor } from '../../../app/actors';
import { paths } from '../../../app/paths';
import { Screen } from '../../../components/Screen';
import { createGuidance } from './commands';
import {
  emptyGuidance,
  newGuidanceId,
  validateGuidance,
  type Guidance,
  type GuidanceErrors,
} from './guidance';
import { GuidanceForm } from './GuidanceForm';
import './guidance.css';
import { useAudioFiles, useGuidanceMap, useLanguages } from './useGuidance';

/**
 * /admin/guidance/create: a new announcement, text to speech or an audio file, with a preview of what
 * callers will hear. Nothing typed is lost when the save is refused.
 */
export function Component() {
  const navigate = useNavigate();
  const toast = useToastActor();
  const { actor, status } = useGuidanceMap();
  const { files } = useAudioFiles();
  const { languages, error: languagesError, retry } = useLanguages();
  const [value, setValue] = useState<Guidance>(() => emptyGuidance());
  const [errors, setErrors] = useState<GuidanceErrors>({});
  const [busy, setBusy] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const ready = actor !== undefined && status === 'ready';
  const check = (g: Guidance) =>
    validateGuidance(g, languages === null ? null : new Set(languages.map((l) => l.code)), files);

  function submit(): GuidanceErrors {
    const found = check(value);
    setErrors(found);
    if (Object.keys(found).length > 0 || !ready) {
      if (!ready) setFormError('Still connecting to the team’s data; try again in a moment.');
      return found;
    }
    setBusy(true);
    setFormError(null);
    const id = newGuidanceId();
    createGuidance(actor, id, value).then(
      () => {
        toast.send({
          type: 'toast.show',
          message: `${value.name.trim()} was created.`,
          toastType: 'success',
        });
        void navigate(paths.adminGuidance.build());
      },
      (e: unknown) => {
        setBusy(false);
        setFormError(e instanceof Error ? e.message : String(e));
      },
    );
    return found;
  }

  return (
    <Screen title="New guidance">
      <GuidanceForm
        value={value}
        errors={errors}
        languages={languages}
        languagesError={languagesError}
        onRetryLanguages={retry}
        audio={files}
        busy={busy}
        submitLabel="Create announcement"
        formError={formError}
        onChange={(g) => {
          setValue(g);
          // Once shown, errors follow the typing.
          if (Object.keys(errors).length > 0) setErrors(check(g));
        }}
        onSubmit={submit}
        onCancel={() => void navigate(paths.adminGuidance.build())}
      />
    </Screen>
  );
}
