// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { toastMachine } from '../../../../src/machines/toast.machine';
import { ActorsProvider } from '../../../../src/ui/app/actors';
import { createAppActors } from '../../../../src/app/page';
import { RevisionLabel } from '../../../../src/ui/components/RevisionLabel';
import { ToastRegion } from '../../../../src/ui/components/ToastRegion';

afterEach(cleanup);

function renderToast() {
  const actors = createAppActors({
    fetch: () => Promise.reject(new Error('no server')),
    currentPath: () => '/',
  });
  const toast = createActor(toastMachine).start();
  render(
    <ActorsProvider actors={{ ...actors, toast }}>
      <ToastRegion />
      <RevisionLabel />
    </ActorsProvider>,
  );
  return toast;
}

describe('toast region', () => {
  it('shows nothing while hidden', () => {
    renderToast();
    expect(screen.queryByTestId('toast')).toBeNull();
  });

  it.each([
    ['info', 'status'],
    ['success', 'status'],
    ['warning', 'alert'],
    ['error', 'alert'],
  ] as const)('announces a %s toast with role %s', (toastType, role) => {
    const toast = renderToast();
    act(() => toast.send({ type: 'toast.show', message: 'Hello', toastType }));
    const shown = screen.getByRole(role);
    expect(shown.getAttribute('data-testid')).toBe('toast');
    expect(shown.getAttribute('data-type')).toBe(toastType);
    expect(shown.textContent).toContain('Hello');
  });

  it('renders markup in the message as text', () => {
    const toast = renderToast();
    act(() => toast.send({ type: 'toast.show', message: '<b>bold</b><img src=x>' }));
    const shown = screen.getByTestId('toast');
    expect(shown.querySelector('b, img')).toBeNull();
    expect(shown.textContent).toBe('<b>bold</b><img src=x>');
  });

  it('closes from the button named "Close notification"', () => {
    const toast = renderToast();
    act(() => toast.send({ type: 'toast.show', message: 'Bye', toastType: 'error' }));
    fireEvent.click(screen.getByRole('button', { name: 'Close notification' }));
    expect(screen.queryByTestId('toast')).toBeNull();
    expect(toast.getSnapshot().value).toBe('hidden');
  });

  it('shows the revision label with its build title', () => {
    renderToast();
    const label = screen.getByTestId('revision');
    expect(label.textContent).toBe('test');
    expect(label.getAttribute('title')).toBe('Build test');
  });
});
