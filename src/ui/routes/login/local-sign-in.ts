export interface LocalSignInValues {
  name: string;
  email: string;
  passcode: string;
  /** The one-time code (from an admin, or the server's terminal), asked for when the email already has an account. */
  code: string;
}

/** The server's answers that ask for (or refuse) the one-time sign-in code. */
export const CODE_ERRORS: ReadonlySet<string> = new Set([
  'sign_in_code_required',
  'bad_sign_in_code',
]);

export type LocalSignInErrors = Partial<Record<keyof LocalSignInValues, string>>;

export const NAME_MAX_LENGTH = 100;
export const EMAIL_MAX_LENGTH = 254;
// Deliberately loose: one @, something on both sides, a dot in the domain. The server decides.
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The local sign-in form's checks; an empty result means the values may be sent. */
export function validateLocalSignIn(
  values: LocalSignInValues,
  passcodeRequired: boolean,
  codeAsked = false,
): LocalSignInErrors {
  const errors: LocalSignInErrors = {};
  const name = values.name.trim();
  const email = values.email.trim();
  if (name === '') errors.name = 'Enter your name.';
  else if (name.length > NAME_MAX_LENGTH)
    errors.name = `Use at most ${NAME_MAX_LENGTH} characters.`;
  if (email === '') errors.email = 'Enter your email address.';
  else if (email.length > EMAIL_MAX_LENGTH || !EMAIL_SHAPE.test(email))
    errors.email = 'Enter an email address like name@example.com.';
  if (passcodeRequired && values.passcode === '') errors.passcode = 'Enter the team passcode.';
  if (codeAsked && !/^\s*\d{8}\s*$/.test(values.code))
    errors.code = 'Enter the 8-digit sign-in code from an admin or the server’s terminal.';
  return errors;
}
