import { loadConfig, type AppConfig } from '../../../io/api/config';
import type { ApiClient } from '../../../io/api/client';

export type ConfigResult = { ok: true; config: AppConfig } | { ok: false; message: string };

/** The login route's loader: the config, or the reason it could not be read (shown with Retry). */
export function createConfigLoader(api: ApiClient) {
  return async (): Promise<ConfigResult> => {
    try {
      return { ok: true, config: await loadConfig(api) };
    } catch (error) {
      return { ok: false, message: error instanceof Error ? error.message : 'Unknown error.' };
    }
  };
}
