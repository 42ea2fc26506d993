import { useSelector } from '@xstate/react';
import { useEffect, useId, useState, type FormEvent } from 'react';
import {
  selectLastError,
  selectLastErrorCode,
  selectSessionStatus,
} from '../../../machines/session.selectors';
import { useSessionActor } from '../../app/actors';
import {
  CODE_ERRORS,
  validateLocalSignIn,
  type LocalSignInErrors,
  type LocalSignInValues,
} from './local-sign-in';

/**
 * Sign-in with name and email (and the team passcode when the server asks for one). When the email
 * already has an account and this browser never signed in as that person, the server asks for the
 * one-time code an admin issued (from /users) or it printed in its terminal; the form then shows a
 * code field. The server's message shows here once (no toast besides). Values stay as typed
 * when the server refuses them; errors are tied to their fields for screen readers.
 */
export function LocalSignInForm({ passcodeRequired }: { passcodeRequired: boolean }) {
  const session = useSessionActor();
  const status = useSelector(session, selectSessionStatus);
  const serverError = useSelector(session, selectLastError);
  const serverErrorCode = useSelector(session, selectLastErrorCode);
  const [values, setValues] = useState<LocalSignInValues>({
    name: '',
    email: '',
    passcode: '',
    code: '',
  });
  // Once asked for, the code field stays until sign-in succeeds (the form unmounts then).
  const [codeAsked, setCodeAsked] = useState(false);
  if (!codeAsked && serverErrorCode !== null && CODE_ERRORS.has(serverErrorCode))
    setCodeAsked(true);
  const [errors, setErrors] = useState<LocalSignInErrors>({});
  const ids = useId();
  // The field appears because the server asked for it: that is where the person types next.
  useEffect(() => {
    if (codeAsked) document.getElementById(`${ids}-code`)?.focus();
  }, [codeAsked, ids]);
  const signingIn = status === 'signingIn';

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (signingIn) return;
    const found = validateLocalSignIn(values, passcodeRequired, codeAsked);
    setErrors(found);
    const firstInvalid = (['name', 'email', 'passcode', 'code'] as const).find(
      (key) => found[key] !== undefined,
    );
    if (firstInvalid !== undefined) {
      document.getElementById(`${ids}-${firstInvalid}`)?.focus();
      return;
    }
    const request = {
      method: 'local' as const,
      name: values.name.trim(),
      email: values.email.trim(),
    };
    session.send({
      type: 'session.signIn',
      request: {
        ...request,
        ...(passcodeRequired ? { passcode: values.passcode } : {}),
        ...(codeAsked ? { code: values.code.trim() } : {}),
      },
    });
  };

  const field = (
    key: keyof LocalSignInValues,
    label: string,
    type: string,
    autoComplete: string,
  ) => {
    const error = errors[key];
    const inputId = `${ids}-${key}`;
    return (
      <div className="field">
        <label htmlFor={inputId}>{label}</label>
        <input
          id={inputId}
          name={key}
          type={type}
          autoComplete={autoComplete}
          value={values[key]}
          required={key === 'name' || key === 'email' || passcodeRequired || key === 'code'}
          {...(key === 'code' ? { inputMode: 'numeric' as const, maxLength: 8 } : {})}
          aria-invalid={error === undefined ? undefined : true}
          aria-describedby={error === undefined ? undefined : `${inputId}-error`}
          onChange={(e) => {
            const value = e.currentTarget.value;
            setValues((v) => ({ ...v, [key]: value }));
          }}
        />
        {error !== undefined && (
          <p id={`${inputId}-error`} className="field__error">
            {error}
          </p>
        )}
      </div>
    );
  };

  return (
    <form className="login__form" noValidate onSubmit={onSubmit}>
      {field('name', 'Name', 'text', 'name')}
      {field('email', 'Email', 'email', 'email')}
      {passcodeRequired && field('passcode', 'Passcode', 'password', 'current-password')}
      {codeAsked && field('code', 'Sign-in code', 'text', 'one-time-code')}
      {serverError !== null && !signingIn && (
        <p className="login__server-error" role="alert" data-testid="sign-in-error">
          {serverError}
        </p>
      )}
      <button type="submit" className="button button--primary" disabled={signingIn}>
        {signingIn ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
