import { useEffect, useRef } from 'react';
import { Outlet, useLocation } from 'react-router-dom';
import '../../../styles/shell.css';
import { WorkspaceProvider } from '../../app/WorkspaceProvider';
import { Softphone } from '../../phone/Softphone';
import { SyncStatusBanner } from '../../sync/SyncStatusBanner';
import { SideNav } from './SideNav';
import { TopBar } from './TopBar';

/**
 * The signed-in frame (PRODUCT.md main layout): top bar, side nav, and the screen. It stays mounted
 * while navigating, including into the admin and settings layouts nested inside it. It hands the
 * signed-in person's workspace (Sync, presence, the phone; started by the page root) to every
 * screen below, so they share one SyncClient and one phone.
 */
export function Component() {
  const { pathname } = useLocation();
  const main = useRef<HTMLElement>(null);
  const shownPath = useRef(pathname);
  // After a navigation, screen readers and keyboard users start at the new screen, not in the nav.
  useEffect(() => {
    if (shownPath.current === pathname) return;
    shownPath.current = pathname;
    main.current?.focus();
  }, [pathname]);
  return (
    <WorkspaceProvider>
      <div className="shell">
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <a className="skip-link" href="#phone">
          Skip to the phone
        </a>
        <TopBar />
        <SideNav />
        <main id="main" ref={main} className="shell__main" tabIndex={-1}>
          <SyncStatusBanner />
          <Outlet />
        </main>
        <Softphone />
      </div>
    </WorkspaceProvider>
  );
}
