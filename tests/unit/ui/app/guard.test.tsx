// @vitest-environment jsdom
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { admin, agent, FakeServer, renderApp, unauthorized } from '../harness';
import { API } from '../../../../src/contracts/api';

afterEach(cleanup);

/** Waits for the screen titled `name`: the location changes before the new screen renders. */
async function expectScreen(name: string): Promise<void> {
  expect(await screen.findByRole('heading', { level: 1, name })).toBeTruthy();
}

describe('route guard', () => {
  it('decides nothing while the session is restoring', async () => {
    const server = new FakeServer(null);
    let release!: () => void;
    server.overrides.set(
      'GET /api/session',
      () => new Promise((r) => (release = () => r(unauthorized()))),
    );
    const app = renderApp('/history', server);
    expect(screen.getByTestId('session-restoring').getAttribute('aria-busy')).toBe('true');
    expect(screen.queryByLabelText('Name')).toBeNull();
    expect(app.path()).toBe('/history');
    release();
    await screen.findByLabelText('Name');
    expect(screen.queryByTestId('session-restoring')).toBeNull();
  });

  it('sends a visitor without a session to /login with the full original path', async () => {
    const app = renderApp('/history?filter=missed#top', new FakeServer(null));
    await screen.findByLabelText('Name');
    expect(app.path()).toBe(`/login?redirect=${encodeURIComponent('/history?filter=missed#top')}`);
  });

  it('guards unknown paths too, and leaves /login alone', async () => {
    const app = renderApp('/no/such/page', new FakeServer(null));
    await screen.findByLabelText('Name');
    expect(app.path()).toBe('/login?redirect=%2Fno%2Fsuch%2Fpage');
  });

  it('takes the user to the redirect after a local sign-in', async () => {
    const app = renderApp('/history', new FakeServer(null));
    fireEvent.change(await screen.findByLabelText('Name'), { target: { value: 'Ada Admin' } });
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'ada@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(app.path()).toBe('/history'));
    await expectScreen('Call history');
    expect(screen.getByText('Ada Admin')).toBeTruthy();
  });

  it('goes to / after sign-in when the redirect is not a same-origin path', async () => {
    const app = renderApp('/login?redirect=%2F%2Fevil.com', new FakeServer(null));
    fireEvent.change(await screen.findByLabelText('Name'), { target: { value: 'Ada' } });
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'ada@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(app.path()).toBe('/'));
    await expectScreen('Contacts');
  });

  it('lets a signed-in user straight through, and sends them on from /login', async () => {
    const app = renderApp('/login?redirect=%2Fhold', new FakeServer(admin));
    await waitFor(() => expect(app.path()).toBe('/hold'));
    await expectScreen('On hold');
  });

  it('turns an agent away from /admin with a warning toast', async () => {
    const app = renderApp('/admin/group/g1/edit', new FakeServer(agent));
    await waitFor(() => expect(app.path()).toBe('/'));
    const toast = await screen.findByTestId('toast');
    expect(toast.getAttribute('data-type')).toBe('warning');
    expect(toast.getAttribute('role')).toBe('alert');
    expect(toast.textContent).toContain('Only admins can open the admin area.');
    expect(screen.queryByRole('link', { name: 'Admin' })).toBeNull();
  });

  it('lets an admin into /admin and shows the Admin link', async () => {
    const app = renderApp('/admin', new FakeServer(admin));
    await expectScreen('Admin');
    expect(app.path()).toBe('/admin');
    expect(screen.getByRole('link', { name: 'Admin' })).toBeTruthy();
  });

  it('shows "Page not found" for a malformed id and for unknown paths when signed in', async () => {
    renderApp('/admin/group/bad%20id!/edit', new FakeServer(admin));
    await expectScreen('Page not found');
    cleanup();
    renderApp('/nothing-here', new FakeServer(admin));
    await expectScreen('Page not found');
    expect(screen.getByRole('link', { name: 'Go to the home screen' }).getAttribute('href')).toBe(
      '/',
    );
  });

  it('signs out to /login and shows "Signing out…" meanwhile', async () => {
    const server = new FakeServer(admin);
    let release!: () => void;
    server.overrides.set(
      'POST /api/session/logout',
      () =>
        new Promise((r) => {
          release = () => {
            server.user = null;
            r(new Response(null, { status: 204 }));
          };
        }),
    );
    const app = renderApp('/users', server);
    fireEvent.click(await screen.findByRole('button', { name: 'Sign out' }));
    const busy = await screen.findByRole('button', { name: 'Signing out…' });
    expect((busy as HTMLButtonElement).disabled).toBe(true);
    release();
    await screen.findByLabelText('Name');
    expect(app.path()).toBe('/login?redirect=%2Fusers');
  });

  it('sends the user to /login with a toast when a request finds the session expired', async () => {
    const server = new FakeServer(admin);
    const app = renderApp('/contacts?q=a#b', server);
    await expectScreen('Contacts');
    server.user = null;
    await app.actors.api.call(API.session).catch(() => undefined);
    await screen.findByLabelText('Name');
    expect(app.path()).toBe(`/login?redirect=${encodeURIComponent('/contacts?q=a#b')}`);
    expect(app.actors.session.getSnapshot().context.redirect).toBe('/contacts?q=a#b');
    expect(screen.getByTestId('toast').textContent).toContain(
      'Your session has expired. Please sign in again.',
    );
  });
});
