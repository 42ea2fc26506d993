// @vitest-environment jsdom
import { cleanup, render } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  FLASH_MS,
  ringingTitle,
  useLeaveWarning,
  useRingingFlash,
} from '../../../../src/ui/phone/attention';
import { ariaKeys as ariaKeyShortcut } from '../../../../src/ui/phone/shortcuts';

function Flash({ caller }: { caller: string | null }) {
  useRingingFlash(caller);
  return null;
}

function Warn({ live }: { live: boolean }) {
  useLeaveWarning(live);
  return null;
}

const icon = () => document.querySelector('link[rel="icon"]')?.getAttribute('href');

beforeEach(() => {
  vi.useFakeTimers();
  document.head.innerHTML = '<link rel="icon" href="data:,">';
  document.title = 'Contacts · Switchboard';
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('while a call rings', () => {
  it('the title and the icon flash, and come back when it stops', () => {
    const { rerender } = render(<Flash caller="Ann" />);
    expect(document.title).toBe(ringingTitle('Ann'));
    expect(icon()).toMatch(/^data:image\/svg\+xml/);
    vi.advanceTimersByTime(FLASH_MS);
    expect(document.title).toBe('Contacts · Switchboard');
    expect(icon()).toBe('data:,');
    vi.advanceTimersByTime(FLASH_MS);
    expect(document.title).toBe(ringingTitle('Ann'));
    rerender(<Flash caller={null} />);
    expect(document.title).toBe('Contacts · Switchboard');
    expect(icon()).toBe('data:,');
    vi.advanceTimersByTime(FLASH_MS * 3);
    expect(document.title).toBe('Contacts · Switchboard');
  });

  it('keeps the title of a screen opened meanwhile', () => {
    const { unmount } = render(<Flash caller="Ann" />);
    vi.advanceTimersByTime(FLASH_MS);
    document.title = 'History · Switchboard';
    vi.advanceTimersByTime(FLASH_MS);
    expect(document.title).toBe(ringingTitle('Ann'));
    unmount();
    expect(document.title).toBe('History · Switchboard');
  });

  it('does nothing with no call ringing', () => {
    render(<Flash caller={null} />);
    vi.advanceTimersByTime(FLASH_MS * 2);
    expect(document.title).toBe('Contacts · Switchboard');
    expect(icon()).toBe('data:,');
  });
});

describe('leaving the page', () => {
  const leave = () => {
    const event = new Event('beforeunload', { cancelable: true });
    window.dispatchEvent(event);
    return event.defaultPrevented;
  };

  it('asks first while the tab carries a call, and not after', () => {
    const { rerender } = render(<Warn live />);
    expect(leave()).toBe(true);
    rerender(<Warn live={false} />);
    expect(leave()).toBe(false);
  });
});

describe('aria-keyshortcuts', () => {
  it.each([
    ['Alt+M', 'Alt+M'],
    ['Ctrl+Shift+H', 'Control+Shift+H'],
    ['F2', 'F2'],
  ])('%s reads as %s', (combo, aria) => {
    expect(ariaKeyShortcut(combo)).toBe(aria);
  });
});
