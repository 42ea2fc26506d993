/** Ten SDK clients mutate one map item concurrently: 412 retries lose no update. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../support/server';
import { aclOff, client, shutdownClients } from './support';

describe('concurrent mutate()', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer({ env: { SWITCHBOARD_SYNC_LOG_REQUESTS: '1' } });
    await aclOff(server);
  });
  afterAll(async () => {
    await shutdownClients();
    await server.stop();
    server.cleanup();
  });

  it('ten clients each incrementing 20 times end at exactly 200', async () => {
    const clients = await Promise.all(
      Array.from({ length: 10 }, (_, i) => client(server.url, `m${i}@example.com`)),
    );
    const maps = await Promise.all(clients.map((c) => c.map('counter-map')));
    await Promise.all(
      maps.map(async (m) => {
        for (let i = 0; i < 20; i++) {
          await m.mutate('counter', (v) => ({ n: ((v as { n?: number }).n ?? 0) + 1 }));
        }
      }),
    );
    const reader = await (await client(server.url, 'reader@example.com')).map('counter-map');
    expect((await reader.get('counter')).data).toEqual({ n: 200 });
    const conflicts =
      server.output().match(/PUT \/v3\/Maps\/MP[0-9a-f]{32}\/Items\/counter -> 412/g) ?? [];
    expect(conflicts.length).toBeGreaterThan(0);
  }, 120_000);
});
