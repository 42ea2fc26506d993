/**
 * A person's own settings (the `settings:{identity}` document their browser writes), as the server
 * reads them: whether they have do not disturb on (calls to them are refused, groups skip them).
 */
import { SETTINGS } from '../../src/contracts/objects';
import { settingsRecord } from '../../src/contracts/records/settings';
import type { InternalSync } from '../twins/sync/internal';

/** Whether `identity` has do not disturb on (never without the embedded service). */
export function doNotDisturb(sync: InternalSync | undefined, identity: string): boolean {
  const data = sync?.documentData(SETTINGS.name(identity));
  return data !== undefined && settingsRecord.read(data).doNotDisturb;
}
