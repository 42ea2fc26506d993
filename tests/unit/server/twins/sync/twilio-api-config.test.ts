/** The Sync twin's slow-Sync test hook, SWITCHBOARD_TEST_SYNC_DELAY_MS. */
import { describe, expect, it } from 'vitest';
import { syncReadDelayFromEnv } from '../../../../../server/twins/sync/twilio-api/config';

describe('syncReadDelayFromEnv', () => {
  it('is 0 unless set, takes a whole number of ms, and refuses anything else', () => {
    expect(syncReadDelayFromEnv({})).toBe(0);
    expect(syncReadDelayFromEnv({ SWITCHBOARD_TEST_SYNC_DELAY_MS: ' ' })).toBe(0);
    expect(syncReadDelayFromEnv({ SWITCHBOARD_TEST_SYNC_DELAY_MS: '200' })).toBe(200);
    for (const bad of ['-1', '1.5', 'slow', '10001'])
      expect(() => syncReadDelayFromEnv({ SWITCHBOARD_TEST_SYNC_DELAY_MS: bad })).toThrow(
        /SWITCHBOARD_TEST_SYNC_DELAY_MS must be a whole number of ms, 0 to 10000/,
      );
  });
});
