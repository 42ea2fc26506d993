// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SyncFailure } from '../../../../src/contracts/sync-errors';
import { LoadFailure } from '../../../../src/ui/sync/LoadFailure';
import type { SyncAvailability } from '../../../../src/ui/sync/SyncProvider';

afterEach(cleanup);

const starting: SyncAvailability = { state: 'starting', runtime: null, error: null };

describe('LoadFailure', () => {
  it('says what could not be loaded and why, and retries on the button', () => {
    const onRetry = vi.fn();
    render(
      <LoadFailure
        availability={starting}
        what="Calls"
        error={new SyncFailure('Service unavailable', 503, null, 'network')}
        onRetry={onRetry}
        testId="calls-error"
      />,
    );
    const alert = screen.getByRole('alert');
    expect(alert.getAttribute('data-testid')).toBe('calls-error');
    expect(alert.textContent).toMatch(/^Calls could not be loaded: /);
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(onRetry).toHaveBeenCalledTimes(1);
  });

  it('shows why the sync runtime could not start, ahead of any container error', () => {
    render(
      <LoadFailure
        availability={{ state: 'failed', runtime: null, error: 'Sync is unavailable' }}
        what="The team"
        error={null}
        onRetry={null}
      />,
    );
    expect(screen.getByRole('alert').textContent?.trim()).toBe('Sync is unavailable');
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('says a removed container needs a reload, and offers no retry', () => {
    render(
      <LoadFailure
        availability={starting}
        what="Contacts"
        error={null}
        removed="The shared contact list was removed. Reload the page to start a new one."
        onRetry={() => {}}
      />,
    );
    expect(screen.getByRole('alert').textContent?.trim()).toBe(
      'The shared contact list was removed. Reload the page to start a new one.',
    );
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('says "unknown error" when there is no failure to describe', () => {
    render(<LoadFailure availability={starting} what="Parked calls" error={null} onRetry={null} />);
    expect(screen.getByRole('alert').textContent?.trim()).toBe(
      'Parked calls could not be loaded: unknown error',
    );
  });
});
