import { useSelector } from '@xstate/react';
import { Link, NavLink, useMatch } from 'react-router-dom';
import { selectIsAdmin } from '../../../machines/session.selectors';
import { useSessionActor } from '../../app/actors';
import { paths } from '../../app/paths';
import { HoldCount } from './HoldCount';
import { useUnreadVoicemailCount } from '../history/voicemail';

/** How many voicemail messages among the newest calls are unread for me, beside History. */
function UnreadVoicemail() {
  const count = useUnreadVoicemailCount();
  if (count === 0) return null;
  return (
    <>
      <span className="nav__count" aria-hidden="true" data-testid="nav-voicemail-count">
        {count}
      </span>
      <span className="visually-hidden">
        , {count === 1 ? '1 new voicemail message' : `${count} new voicemail messages`}
      </span>
    </>
  );
}

const navClass = ({ isActive }: { isActive: boolean }): string =>
  isActive ? 'nav__link nav__link--active' : 'nav__link';

export function SideNav() {
  const isAdmin = useSelector(useSessionActor(), selectIsAdmin);
  // "/" shows the contacts screen, so Contacts is the current page there too.
  const atHome = useMatch(paths.home.pattern) !== null;
  const contactsActive = useMatch(paths.contacts.pattern) !== null || atHome;
  return (
    <nav className="nav" aria-label="Main">
      <ul>
        <li>
          <Link
            to={paths.contacts.build()}
            className={navClass({ isActive: contactsActive })}
            aria-current={contactsActive ? 'page' : undefined}
          >
            Contacts
          </Link>
        </li>
        <li>
          <NavLink to={paths.history.build()} className={navClass}>
            History
            <UnreadVoicemail />
          </NavLink>
        </li>
        <li>
          <NavLink to={paths.hold.build()} className={navClass}>
            Hold
            <HoldCount />
          </NavLink>
        </li>
        <li>
          <NavLink to={paths.users.build()} className={navClass}>
            Users
          </NavLink>
        </li>
        {isAdmin && (
          <li>
            <NavLink to={paths.admin.build()} className={navClass}>
              Admin
            </NavLink>
          </li>
        )}
        <li>
          <NavLink to={paths.settings.build()} className={navClass}>
            Settings
          </NavLink>
        </li>
      </ul>
    </nav>
  );
}
