import type { GoogleFlow } from '../../machines/session.types';
import type { GisNamespace, GisPopupError } from './gis';
import { previewIdToken, type IdTokenPreview } from './jwt';
import { GIS_LOAD_ERROR_MESSAGE, INVALID_JWT_MESSAGE } from './messages';

/** Seed section 7: the scopes of both popup flows. */
export const GOOGLE_SCOPES = 'email profile openid';

let loading: { url: string; promise: Promise<GisNamespace> } | null = null;

/**
 * Adds the Google Identity Services script once and resolves `window.google`. Only the login
 * screen calls this (it is imported dynamically). A failure is forgotten so Retry can try again.
 */
export function loadGoogleIdentity(
  scriptUrl: string,
  doc: Document = document,
): Promise<GisNamespace> {
  if (loading !== null && loading.url === scriptUrl) return loading.promise;
  const promise = new Promise<GisNamespace>((resolve, reject) => {
    const existing = doc.defaultView?.google;
    if (existing !== undefined) {
      resolve(existing);
      return;
    }
    const script = doc.createElement('script');
    script.src = scriptUrl;
    script.async = true;
    script.onload = () => {
      const google = doc.defaultView?.google;
      if (google === undefined) reject(new Error(GIS_LOAD_ERROR_MESSAGE));
      else resolve(google);
    };
    script.onerror = () => {
      script.remove();
      reject(new Error(GIS_LOAD_ERROR_MESSAGE));
    };
    doc.head.append(script);
  });
  loading = { url: scriptUrl, promise };
  promise.catch(() => {
    if (loading?.promise === promise) loading = null;
  });
  return promise;
}

/** For tests: forget the loaded script. */
export function resetGoogleIdentityLoader(): void {
  loading = null;
}

export interface GoogleSignInHandlers {
  /** A Google result to send to the server. */
  onResult: (flow: GoogleFlow, value: string) => void;
  /** Name and picture from an ID token, for "Signing in as …". */
  onPreview: (preview: IdTokenPreview) => void;
  onProblem: (message: string, toastType: 'info' | 'error') => void;
}

export interface GoogleFlows {
  /** The default flow: the authorization-code popup. */
  requestCode: () => void;
  requestAccessToken: () => void;
}

function popupProblem(error: GisPopupError, handlers: GoogleSignInHandlers): void {
  if (error.type === 'popup_closed')
    handlers.onProblem('Google sign-in was closed before it finished.', 'info');
  else if (error.type === 'popup_failed_to_open')
    handlers.onProblem(
      'The Google sign-in window could not open. Allow pop-ups for this site and try again.',
      'error',
    );
  else
    handlers.onProblem(
      `Google sign-in failed${error.message ? `: ${error.message}` : '.'}`,
      'error',
    );
}

function resultProblem(error: string | undefined, description: string | undefined): string {
  return `Google sign-in failed: ${description ?? error ?? 'no result was returned.'}`;
}

/**
 * Wires the three Google flows of seed section 7: the ID-token button rendered into `button`
 * (theme outline, size large), and the code and access-token popups with {@link GOOGLE_SCOPES}.
 */
export function setupGoogleSignIn(
  google: GisNamespace,
  clientId: string,
  button: HTMLElement | null,
  handlers: GoogleSignInHandlers,
): GoogleFlows {
  google.accounts.id.initialize({
    client_id: clientId,
    callback: ({ credential }) => {
      let preview: IdTokenPreview;
      try {
        preview = previewIdToken(credential);
      } catch {
        handlers.onProblem(INVALID_JWT_MESSAGE, 'error');
        return;
      }
      handlers.onPreview(preview);
      handlers.onResult('idToken', credential);
    },
  });
  if (button !== null) google.accounts.id.renderButton(button, { theme: 'outline', size: 'large' });

  const codeClient = google.accounts.oauth2.initCodeClient({
    client_id: clientId,
    scope: GOOGLE_SCOPES,
    ux_mode: 'popup',
    callback: ({ code, error, error_description }) => {
      if (typeof code === 'string' && code !== '') handlers.onResult('code', code);
      else handlers.onProblem(resultProblem(error, error_description), 'error');
    },
    error_callback: (error) => popupProblem(error, handlers),
  });
  const tokenClient = google.accounts.oauth2.initTokenClient({
    client_id: clientId,
    scope: GOOGLE_SCOPES,
    callback: ({ access_token, error, error_description }) => {
      if (typeof access_token === 'string' && access_token !== '')
        handlers.onResult('accessToken', access_token);
      else handlers.onProblem(resultProblem(error, error_description), 'error');
    },
    error_callback: (error) => popupProblem(error, handlers),
  });
  return {
    requestCode: () => codeClient.requestCode(),
    requestAccessToken: () => tokenClient.requestAccessToken(),
  };
}
