import { isRouteErrorResponse, useRouteError } from 'react-router-dom';
import { NotFound } from './NotFound';
import { Screen } from './Screen';

/** Route errors: a 404 (e.g. a malformed id) is "Page not found"; anything else is reported plainly. */
export function RouteError() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFound />;
  const detail = error instanceof Error ? error.message : null;
  return (
    <Screen title="Something went wrong">
      <p>This screen could not be shown{detail === null ? '.' : `: ${detail}`}</p>
      <p>
        <button type="button" className="button" onClick={() => window.location.reload()}>
          Reload the page
        </button>
      </p>
    </Screen>
  );
}
