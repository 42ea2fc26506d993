/**
 * What makes a call hard to miss and hard to lose outside the panel: while a call rings the tab's
 * title and icon flash (seen from another tab or a taskbar), and while this tab carries a call the
 * browser asks before a reload or a close ends it.
 */
import { useCallback, useEffect, useSyncExternalStore } from 'react';
import { selectCallLive, selectCallSummary } from '../../machines/call.selectors';
import type { CallSummary } from '../../machines/call.selectors';
import type { CallActor } from '../../machines/device.setup';

/** How often the title and the icon change while a call rings. */
export const FLASH_MS = 1000;

const RINGING_ICON =
  'data:image/svg+xml,' +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="8" fill="#1d7a46"/><path d="M5 4h2l1 2.5-1.2.8a5 5 0 0 0 2 2l.8-1.2L12 9v2a1 1 0 0 1-1 1A7 7 0 0 1 4 5a1 1 0 0 1 1-1z" fill="#fff"/></svg>',
  );

/** Who a ringing call is from, as the title names them. */
export function callerOf(summary: CallSummary): string {
  const { displayName, identity, number } = summary.remote;
  return displayName ?? identity ?? number ?? 'Unknown caller';
}

/** The title while `caller` rings, shown every other beat. */
export const ringingTitle = (caller: string): string => `☎ Call from ${caller}`;

/**
 * Who is calling (the first call ringing here, this tab's or, in a tab that does not hold the
 * phone, the owner tab's), or null: re-read whenever one of the calls changes.
 */
export function useRingingCaller(
  entries: readonly [string, CallActor][],
  mirrored: readonly CallSummary[],
): string | null {
  const subscribe = useCallback(
    (onChange: () => void) => {
      const subscriptions = entries.map(([, call]) => call.subscribe(onChange));
      return () => {
        for (const s of subscriptions) s.unsubscribe();
      };
    },
    [entries],
  );
  const own = useSyncExternalStore(subscribe, () => {
    for (const [, call] of entries) {
      const summary = selectCallSummary(call.getSnapshot());
      if (summary.status === 'incoming') return callerOf(summary);
    }
    return null;
  });
  const elsewhere = mirrored.find((c) => c.status === 'incoming');
  return own ?? (elsewhere ? callerOf(elsewhere) : null);
}

/** Whether this tab carries a live call (one a reload would end). */
export function useLiveCall(entries: readonly [string, CallActor][]): boolean {
  const subscribe = useCallback(
    (onChange: () => void) => {
      const subscriptions = entries.map(([, call]) => call.subscribe(onChange));
      return () => {
        for (const s of subscriptions) s.unsubscribe();
      };
    },
    [entries],
  );
  return useSyncExternalStore(subscribe, () =>
    entries.some(([, call]) => selectCallLive(call.getSnapshot())),
  );
}

function iconLink(): HTMLLinkElement {
  let link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
  if (link === null) {
    link = document.createElement('link');
    link.rel = 'icon';
    document.head.append(link);
  }
  return link;
}

/** The title and the icon flash while `caller` rings; both are put back when it stops. */
export function useRingingFlash(caller: string | null): void {
  useEffect(() => {
    if (caller === null) return;
    const ringing = ringingTitle(caller);
    // The screen's own title, kept up to date: a screen opened while it rings sets its own.
    let title = document.title;
    const link = iconLink();
    const icon = link.getAttribute('href') ?? 'data:,';
    let on = false;
    const flip = () => {
      if (document.title !== ringing) title = document.title;
      on = !on;
      document.title = on ? ringing : title;
      link.href = on ? RINGING_ICON : icon;
    };
    flip();
    const timer = setInterval(flip, FLASH_MS);
    return () => {
      clearInterval(timer);
      if (document.title === ringing) document.title = title;
      link.setAttribute('href', icon);
    };
  }, [caller]);
}

/**
 * While `live`, a reload or a close of the tab asks first (the browser's own dialog: it shows its
 * own words, not ours), since leaving the page ends the call.
 */
export function useLeaveWarning(live: boolean): void {
  useEffect(() => {
    if (!live) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers show the dialog only when a return value is set.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [live]);
}
