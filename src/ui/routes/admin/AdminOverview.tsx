import { Link } from 'react-router-dom';
import { Screen } from '../../components/Screen';
import { paths } from '../../app/paths';
import { TeamCountry } from './team/TeamCountry';

export function Component() {
  return (
    <Screen title="Admin">
      <p>Set up how calls reach your team.</p>
      <ul className="link-list">
        <li>
          <Link to={paths.adminGroups.build()}>Ring groups</Link>: numbers, members, business hours,
          holidays and forwarding.
        </li>
        <li>
          <Link to={paths.adminGuidance.build()}>Announcements</Link>: what callers hear, spoken or
          recorded.
        </li>
        <li>
          <Link to={paths.adminAudio.build()}>Audio files</Link>: recordings used by announcements.
        </li>
      </ul>
      <TeamCountry />
    </Screen>
  );
}
