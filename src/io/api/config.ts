import { SESSION_ROUTES as API, type AppConfig } from '../../contracts/api-session';
import type { ApiClient } from './client';

export type { AppConfig } from '../../contracts/api-session';

/** `GET /api/config`: what the login screen may offer. */
export function loadConfig(api: ApiClient): Promise<AppConfig> {
  return api.call(API.config, undefined, undefined, {
    unreadable: 'The server sent an unreadable configuration.',
  });
}
