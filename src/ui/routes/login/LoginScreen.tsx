import { useLoaderData, useRevalidator } from 'react-router-dom';
import '../../../styles/login.css';
import type { AppConfig } from '../../../io/api/config';
import type { ConfigResult } from './config-loader';
import { GoogleSignIn } from './GoogleSignIn';
import { LocalSignInForm } from './LocalSignInForm';

function ConfigError({ message }: { message: string }) {
  const revalidator = useRevalidator();
  const retrying = revalidator.state === 'loading';
  return (
    <div className="login__problem" role="alert" data-testid="config-error">
      <p>The sign-in options could not be loaded: {message}</p>
      <button
        type="button"
        className="button"
        disabled={retrying}
        onClick={() => void revalidator.revalidate()}
      >
        {retrying ? 'Retrying…' : 'Retry'}
      </button>
    </div>
  );
}

function SignInOptions({ config }: { config: AppConfig }) {
  const google = config.googleClientId;
  if (google === null && !config.localSignIn) {
    return (
      <p className="login__problem" data-testid="no-sign-in">
        This server offers no way to sign in from here. Ask whoever runs it to set up Google sign-in
        or a team passcode.
      </p>
    );
  }
  return (
    <>
      {google !== null && <GoogleSignIn clientId={google} scriptUrl={config.googleScriptUrl} />}
      {google !== null && config.localSignIn && <p className="login__or">or</p>}
      {config.localSignIn && <LocalSignInForm passcodeRequired={config.passcodeRequired} />}
    </>
  );
}

export function Component() {
  const result = useLoaderData<ConfigResult>();
  return (
    <main className="login">
      <title>Sign in · Switchboard</title>
      <div className="login__card">
        <h1>Sign in</h1>
        <p className="login__intro">Sign in to Switchboard to answer your team's calls.</p>
        {result.ok ? (
          <SignInOptions config={result.config} />
        ) : (
          <ConfigError message={result.message} />
        )}
      </div>
    </main>
  );
}
