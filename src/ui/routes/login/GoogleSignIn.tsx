import { useSelector } from '@xstate/react';
import { useEffect, useRef, useState } from 'react';
import type { GoogleFlows } from '../../../io/google/google';
import type { IdTokenPreview } from '../../../io/google/jwt';
import { GIS_LOAD_ERROR_MESSAGE } from '../../../io/google/messages';
import { selectSessionStatus } from '../../../machines/session.selectors';
import { useSessionActor, useToastActor } from '../../app/actors';

type Phase = { name: 'loading' } | { name: 'ready'; flows: GoogleFlows } | { name: 'failed' };

/**
 * Google sign-in (seed section 7). The Identity Services script is fetched only here, after the
 * login screen mounts, through a dynamic import so the rest of the app never carries it.
 */
export function GoogleSignIn({ clientId, scriptUrl }: { clientId: string; scriptUrl: string }) {
  const session = useSessionActor();
  const toast = useToastActor();
  const signingIn = useSelector(session, selectSessionStatus) === 'signingIn';
  const buttonRef = useRef<HTMLDivElement>(null);
  const [phase, setPhase] = useState<Phase>({ name: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const [preview, setPreview] = useState<IdTokenPreview | null>(null);

  useEffect(() => {
    let active = true;
    const handlers = {
      onResult: (flow: 'idToken' | 'code' | 'accessToken', value: string) => {
        if (flow !== 'idToken') setPreview(null);
        session.send({ type: 'session.signIn', request: { method: 'google', flow, value } });
      },
      onPreview: setPreview,
      onProblem: (message: string, toastType: 'info' | 'error') =>
        toast.send({ type: 'toast.show', message, toastType }),
    };
    import('../../../io/google/google')
      .then(async ({ loadGoogleIdentity, setupGoogleSignIn }) => {
        const google = await loadGoogleIdentity(scriptUrl);
        if (!active) return;
        setPhase({
          name: 'ready',
          flows: setupGoogleSignIn(google, clientId, buttonRef.current, handlers),
        });
      })
      .catch(() => {
        if (!active) return;
        toast.send({ type: 'toast.show', message: GIS_LOAD_ERROR_MESSAGE, toastType: 'error' });
        setPhase({ name: 'failed' });
      });
    return () => {
      active = false;
    };
  }, [clientId, scriptUrl, attempt, session, toast]);

  const flows = phase.name === 'ready' ? phase.flows : null;
  return (
    <section
      className="login__google"
      aria-label="Sign in with Google"
      data-testid="google-sign-in"
    >
      <button
        type="button"
        className="button button--google"
        disabled={flows === null || signingIn}
        onClick={() => flows?.requestCode()}
      >
        Sign in with Google
      </button>
      <div
        ref={buttonRef}
        className="login__gis-button"
        data-testid="google-id-button"
        hidden={flows === null}
      />
      {flows !== null && (
        <button
          type="button"
          className="link-button"
          disabled={signingIn}
          onClick={() => flows.requestAccessToken()}
        >
          Use a Google access token instead
        </button>
      )}
      {phase.name === 'loading' && <p className="login__hint">Loading Google sign-in…</p>}
      {phase.name === 'failed' && (
        <p className="login__problem" data-testid="google-unavailable">
          Google sign-in is unavailable right now.{' '}
          <button
            type="button"
            className="link-button"
            onClick={() => {
              setPhase({ name: 'loading' });
              setAttempt((n) => n + 1);
            }}
          >
            Try again
          </button>
        </p>
      )}
      {signingIn && preview !== null && (
        <p className="login__preview" data-testid="google-preview">
          {preview.picture !== null && <img src={preview.picture} alt="" width={32} height={32} />}
          <span>Signing in as {preview.name}</span>
        </p>
      )}
    </section>
  );
}
