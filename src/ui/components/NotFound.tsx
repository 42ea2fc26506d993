import { Link } from 'react-router-dom';
import { paths } from '../app/paths';
import { Screen } from './Screen';

export function NotFound() {
  return (
    <Screen title="Page not found">
      <p>
        There is nothing at this address. It may have been mistyped, or the item no longer exists.
      </p>
      <p>
        <Link to={paths.home.build()}>Go to the home screen</Link>
      </p>
    </Screen>
  );
}
