import { Outlet } from 'react-router-dom';
import '../../../styles/shell.css';
import { SideNav } from './SideNav';
import { TopBar } from './TopBar';

/**
 * The signed-in frame (PRODUCT.md main layout): top bar, side nav, and the screen. It stays mounted
 * while navigating, including into the admin and settings layouts nested inside it.
 */
export function Component() {
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <TopBar />
      <SideNav />
      <main id="main" className="shell__main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
