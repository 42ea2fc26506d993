import { NavLink, Outlet } from 'react-router-dom';
import { paths } from '../../app/paths';

const navClass = ({ isActive }: { isActive: boolean }): string =>
  isActive ? 'subnav__link subnav__link--active' : 'subnav__link';

/** The admin area's frame: its own section links above the admin screen. */
export function Component() {
  return (
    <div className="admin">
      <nav className="subnav" aria-label="Admin">
        <NavLink end to={paths.admin.build()} className={navClass}>
          Overview
        </NavLink>
        <NavLink to={paths.adminGroups.build()} className={navClass}>
          Ring groups
        </NavLink>
        <NavLink to={paths.adminGuidance.build()} className={navClass}>
          Announcements
        </NavLink>
        <NavLink to={paths.adminAudio.build()} className={navClass}>
          Audio files
        </NavLink>
      </nav>
      <Outlet />
    </div>
  );
}
