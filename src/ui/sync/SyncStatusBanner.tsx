import './sync.css';
import { useSyncConnection } from './connection';

/**
 * A thin banner under the top bar when live updates are not flowing: "Reconnecting…" after a drop
 * (the SDK retries by itself), or what to do when the link was refused or never came up.
 * Announced politely: it is status, not an alarm.
 */
export function SyncStatusBanner() {
  const { connection, retry } = useSyncConnection();
  if (connection === 'live' || connection === 'starting') return null;
  return (
    <div className="sync-banner" role="status" data-testid="sync-banner" data-state={connection}>
      {connection === 'reconnecting' && (
        <span>Reconnecting… The list may be out of date until the connection is back.</span>
      )}
      {connection === 'denied' && (
        <span>Live updates were refused. Sign in again to continue.</span>
      )}
      {connection === 'unavailable' && <span>Live updates are unavailable.</span>}
      {retry !== null && (
        <button type="button" className="button button--quiet" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}
