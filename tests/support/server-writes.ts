/**
 * Writes through the embedded Sync service as the server makes them (its `as-server` test hook: the
 * server must run with SWITCHBOARD_SYNC_TEST_HOOKS=1), for data no browser may write: a ring group
 * that rings faster than the group form allows, so a test does not wait out the real minimum. The
 * service checks what browsers write against the records (src/contracts); the server's own writes
 * are its own.
 */
import { RawTwilsock, signIn, token } from '../integration/sync/support';

export interface ServerWrites {
  setMapItem(map: string, key: string, data: Record<string, unknown>): Promise<void>;
  close(): void;
}

export async function serverWrites(baseUrl: string): Promise<ServerWrites> {
  const t = await token(baseUrl, await signIn(baseUrl, 'test-hook@example.com'));
  const raw = await RawTwilsock.open(baseUrl);
  await raw.init(t.token);
  return {
    async setMapItem(map, key, data) {
      const path = `/v3/Maps/${encodeURIComponent(map)}`;
      await raw.request('POST', '/test/as-server', {
        method: 'POST',
        path: '/v3/Maps',
        body: { unique_name: map },
      });
      const reply = await raw.request('POST', '/test/as-server', {
        method: 'PUT',
        path: `${path}/Items/${encodeURIComponent(key)}`,
        body: { data },
      });
      const body = reply.body as { key?: string };
      if (body.key !== key) throw new Error(`write refused: ${JSON.stringify(reply.body)}`);
    },
    close: () => raw.close(),
  };
}
