// @vitest-environment jsdom
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, localConfig, renderApp } from '../../harness';

afterEach(cleanup);

const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

function fill(label: string, value: string): void {
  fireEvent.change(screen.getByLabelText(label), { target: { value } });
}

describe('local sign-in form', () => {
  it('shows Name and Email with a Sign in button, and no Passcode unless required', async () => {
    renderApp('/login', new FakeServer(null));
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in' })).toBeTruthy();
    expect(screen.getByLabelText('Name')).toBeTruthy();
    expect(screen.getByLabelText('Email')).toBeTruthy();
    expect(screen.queryByLabelText('Passcode')).toBeNull();
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeTruthy();
  });

  it('checks the fields before posting and ties each message to its field', async () => {
    const server = new FakeServer(null);
    renderApp('/login', server);
    await screen.findByLabelText('Name');
    fill('Email', 'not-an-email');
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    const name = screen.getByLabelText('Name');
    const email = screen.getByLabelText('Email');
    expect(name.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(name.getAttribute('aria-describedby') ?? '')?.textContent).toBe(
      'Enter your name.',
    );
    expect(document.getElementById(email.getAttribute('aria-describedby') ?? '')?.textContent).toBe(
      'Enter an email address like name@example.com.',
    );
    expect(document.activeElement).toBe(name);
    expect(server.requests).not.toContain('POST /api/session/local');
  });

  it('requires the Passcode when the server asks for one, and sends it', async () => {
    const server = new FakeServer(null);
    server.config = { ...localConfig, passcodeRequired: true };
    let body: unknown;
    server.overrides.set('POST /api/session/local', (b) => {
      body = b;
      return json(403, { error: { code: 'bad_passcode', message: 'That passcode is not right.' } });
    });
    renderApp('/login', server);
    await screen.findByLabelText('Passcode');
    fill('Name', 'Ada');
    fill('Email', 'ada@example.com');
    fireEvent.submit(screen.getByRole('button', { name: 'Sign in' }));
    expect(screen.getByText('Enter the team passcode.')).toBeTruthy();
    fill('Passcode', 'wrong');
    fireEvent.submit(screen.getByRole('button', { name: 'Sign in' }));
    await screen.findByTestId('sign-in-error');
    expect(body).toEqual({ name: 'Ada', email: 'ada@example.com', passcode: 'wrong' });
  });

  it('asks for the sign-in code when the email already has an account, and sends it', async () => {
    const server = new FakeServer(null);
    const bodies: unknown[] = [];
    server.overrides.set('POST /api/session/local', (b) => {
      bodies.push(b);
      return json(401, {
        error: {
          code: 'sign_in_code_required',
          message: 'ada@example.com already has an account here. Enter the code.',
        },
      });
    });
    renderApp('/login', server);
    await screen.findByLabelText('Name');
    expect(screen.queryByLabelText('Sign-in code')).toBeNull();
    fill('Name', 'Ada');
    fill('Email', 'ada@example.com');
    fireEvent.submit(screen.getByRole('button', { name: 'Sign in' }));
    const code = await screen.findByLabelText('Sign-in code');
    expect(document.activeElement).toBe(code);
    expect(bodies).toEqual([{ name: 'Ada', email: 'ada@example.com' }]);
    fireEvent.submit(screen.getByRole('button', { name: 'Sign in' }));
    expect(
      screen.getByText('Enter the 8-digit sign-in code from an admin or the server’s terminal.'),
    ).toBeTruthy();
    expect(document.activeElement).toBe(code);
    fill('Sign-in code', '12345678');
    fireEvent.submit(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(bodies).toHaveLength(2));
    expect(bodies[1]).toEqual({ name: 'Ada', email: 'ada@example.com', code: '12345678' });
  });

  it('disables the button and says "Signing in…" while the server answers', async () => {
    const server = new FakeServer(null);
    let release!: () => void;
    server.overrides.set(
      'POST /api/session/local',
      () =>
        new Promise(
          (r) => (release = () => r(json(500, { error: { code: 'x', message: 'Try later.' } }))),
        ),
    );
    renderApp('/login', server);
    await screen.findByLabelText('Name');
    fill('Name', 'Ada');
    fill('Email', 'ada@example.com');
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    const button = await screen.findByRole('button', { name: 'Signing in…' });
    expect((button as HTMLButtonElement).disabled).toBe(true);
    release();
    await screen.findByRole('button', { name: 'Sign in' });
  });

  it('shows the server message once, inline as an alert (no toast too), keeping what was typed', async () => {
    const server = new FakeServer(null);
    server.overrides.set('POST /api/session/local', () =>
      json(400, {
        error: { code: 'invalid_email', message: 'That email address is not allowed.' },
      }),
    );
    const app = renderApp('/login?redirect=%2Fhistory', server);
    await screen.findByLabelText('Name');
    fill('Name', 'Ada');
    fill('Email', 'ada@example.org');
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    const inline = await screen.findByTestId('sign-in-error');
    expect(inline.textContent).toBe('That email address is not allowed.');
    expect(inline.getAttribute('role')).toBe('alert');
    expect(screen.queryByTestId('toast')).toBeNull();
    expect(screen.getByLabelText<HTMLInputElement>('Name').value).toBe('Ada');
    expect(screen.getByLabelText<HTMLInputElement>('Email').value).toBe('ada@example.org');
    expect(app.path()).toBe('/login?redirect=%2Fhistory');
  });

  it('says clearly when the configuration cannot be loaded, and retries', async () => {
    const server = new FakeServer(null);
    server.overrides.set('GET /api/config', () =>
      json(500, { error: { code: 'boom', message: 'Database is down.' } }),
    );
    renderApp('/login', server);
    const problem = await screen.findByTestId('config-error');
    expect(problem.textContent).toContain('Database is down.');
    server.overrides.delete('GET /api/config');
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    await screen.findByLabelText('Name');
    expect(screen.queryByTestId('config-error')).toBeNull();
  });

  it('explains when the server offers no way to sign in', async () => {
    const server = new FakeServer(null);
    server.config = { ...localConfig, localSignIn: false };
    renderApp('/login', server);
    expect((await screen.findByTestId('no-sign-in')).textContent).toContain(
      'offers no way to sign in',
    );
    expect(screen.queryByLabelText('Name')).toBeNull();
  });

  it('does not ask Google for anything when no client id is configured', async () => {
    const server = new FakeServer(null);
    renderApp('/login', server);
    await screen.findByLabelText('Name');
    await waitFor(() => expect(server.requests).toContain('GET /api/config'));
    expect(screen.queryByTestId('google-sign-in')).toBeNull();
    expect(document.querySelector('script[src]')).toBeNull();
  });
});
