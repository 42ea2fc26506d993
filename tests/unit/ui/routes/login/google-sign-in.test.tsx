// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { resetGoogleIdentityLoader } from '../../../../../src/io/google/google';
import type {
  GisButtonOptions,
  GisCodeClientConfig,
  GisIdConfiguration,
  GisNamespace,
  GisTokenClientConfig,
} from '../../../../../src/io/google/gis';
import { admin, FakeServer, localConfig, renderApp } from '../../harness';

afterEach(() => {
  cleanup();
  resetGoogleIdentityLoader();
  delete window.google;
  document.head.querySelectorAll('script').forEach((s) => s.remove());
});

/** A stand-in for Google Identity Services that records how it was set up. */
function fakeGoogle() {
  const seen: {
    id?: GisIdConfiguration;
    button?: { parent: HTMLElement; options: GisButtonOptions };
    code?: GisCodeClientConfig;
    token?: GisTokenClientConfig;
    codeRequests: number;
    tokenRequests: number;
  } = { codeRequests: 0, tokenRequests: 0 };
  const google: GisNamespace = {
    accounts: {
      id: {
        initialize: (config) => (seen.id = config),
        renderButton: (parent, options) => (seen.button = { parent, options }),
      },
      oauth2: {
        initCodeClient: (config) => {
          seen.code = config;
          return { requestCode: () => (seen.codeRequests += 1) };
        },
        initTokenClient: (config) => {
          seen.token = config;
          return { requestAccessToken: () => (seen.tokenRequests += 1) };
        },
      },
    },
  };
  window.google = google;
  return seen;
}

const b64url = (value: string): string => Buffer.from(value).toString('base64url');
const idToken = (claims: object): string =>
  `${b64url('{"alg":"RS256"}')}.${b64url(JSON.stringify(claims))}.sig`;

function googleServer(): { server: FakeServer; bodies: Map<string, unknown> } {
  const server = new FakeServer(null);
  server.config = { ...localConfig, googleClientId: 'client-123', localSignIn: false };
  const bodies = new Map<string, unknown>();
  for (const path of [
    '/api/session/google',
    '/api/session/google/code',
    '/api/session/google/token',
  ]) {
    server.overrides.set(`POST ${path}`, (body) => {
      bodies.set(path, body);
      return new Promise<Response>(() => undefined);
    });
  }
  return { server, bodies };
}

async function ready(): Promise<void> {
  await waitFor(() =>
    expect(
      screen.getByRole<HTMLButtonElement>('button', { name: 'Sign in with Google' }).disabled,
    ).toBe(false),
  );
}

describe('Google sign-in', () => {
  it('renders the ID-token button (outline, large) and sets up both popups with the seed scopes', async () => {
    const seen = fakeGoogle();
    renderApp('/login', googleServer().server);
    await ready();
    expect(seen.id?.client_id).toBe('client-123');
    expect(seen.button?.options).toEqual({ theme: 'outline', size: 'large' });
    expect(seen.button?.parent).toBe(screen.getByTestId('google-id-button'));
    expect(seen.code).toMatchObject({
      client_id: 'client-123',
      scope: 'email profile openid',
      ux_mode: 'popup',
    });
    expect(seen.token).toMatchObject({ client_id: 'client-123', scope: 'email profile openid' });
  });

  it('uses the authorization-code popup by default and posts the code', async () => {
    const seen = fakeGoogle();
    const { server, bodies } = googleServer();
    renderApp('/login', server);
    await ready();
    fireEvent.click(screen.getByRole('button', { name: 'Sign in with Google' }));
    expect(seen.codeRequests).toBe(1);
    act(() => seen.code?.callback({ code: 'auth-code-1' }));
    await waitFor(() =>
      expect(bodies.get('/api/session/google/code')).toEqual({ code: 'auth-code-1' }),
    );
  });

  it('offers the access-token popup as an alternative and posts the token', async () => {
    const seen = fakeGoogle();
    const { server, bodies } = googleServer();
    renderApp('/login', server);
    await ready();
    fireEvent.click(screen.getByRole('button', { name: 'Use a Google access token instead' }));
    expect(seen.tokenRequests).toBe(1);
    act(() => seen.token?.callback({ access_token: 'ya29.token' }));
    await waitFor(() =>
      expect(bodies.get('/api/session/google/token')).toEqual({ access_token: 'ya29.token' }),
    );
  });

  it('shows who is signing in from the ID token and posts the credential', async () => {
    const seen = fakeGoogle();
    const { server, bodies } = googleServer();
    renderApp('/login', server);
    await ready();
    const credential = idToken({ name: 'Ada Lovelace', picture: 'https://lh3.example/a.png' });
    act(() => seen.id?.callback({ credential }));
    expect((await screen.findByTestId('google-preview')).textContent).toBe(
      'Signing in as Ada Lovelace',
    );
    await waitFor(() => expect(bodies.get('/api/session/google')).toEqual({ credential }));
  });

  it('refuses a malformed ID token with "JWT provided is invalid" and posts nothing', async () => {
    const seen = fakeGoogle();
    const { server } = googleServer();
    renderApp('/login', server);
    await ready();
    act(() => seen.id?.callback({ credential: 'not.a-jwt' }));
    const toast = await screen.findByTestId('toast');
    expect(toast.textContent).toContain('JWT provided is invalid');
    expect(toast.getAttribute('data-type')).toBe('error');
    expect(server.requests.filter((r) => r.startsWith('POST'))).toEqual([]);
  });

  it('reports a popup error and posts nothing', async () => {
    const seen = fakeGoogle();
    const { server } = googleServer();
    renderApp('/login', server);
    await ready();
    act(() => seen.code?.callback({ error: 'access_denied' }));
    expect((await screen.findByTestId('toast')).textContent).toContain(
      'Google sign-in failed: access_denied',
    );
    expect(server.requests.filter((r) => r.startsWith('POST'))).toEqual([]);
  });

  it('shows the seed message when the Google script cannot load', async () => {
    renderApp('/login', googleServer().server);
    await waitFor(() =>
      expect(document.head.querySelector('script[src="/gsi/client"]')).not.toBeNull(),
    );
    act(() => {
      document.head.querySelector('script[src="/gsi/client"]')?.dispatchEvent(new Event('error'));
    });
    const toast = await screen.findByTestId('toast');
    expect(toast.textContent).toContain(
      'Failed to load the Google 3P Authorization JavaScript Library.',
    );
    expect(toast.getAttribute('data-type')).toBe('error');
    expect(await screen.findByTestId('google-unavailable')).toBeTruthy();
  });

  it('never loads the Google script outside the login screen', async () => {
    const { server } = googleServer();
    server.user = admin;
    renderApp('/history', server);
    await screen.findByRole('heading', { level: 1, name: 'Call history' });
    expect(document.head.querySelector('script[src]')).toBeNull();
  });
});
