import { Outlet } from 'react-router-dom';

/** The settings frame; its index is the settings screen. Sections will nest here. */
export function Component() {
  return (
    <div className="settings">
      <Outlet />
    </div>
  );
}
