import { ApiError, type ApiClient } from './client';

/** `GET /api/config`: what the login screen may offer. */
export interface AppConfig {
  googleClientId: string | null;
  googleScriptUrl: string;
  localSignIn: boolean;
  passcodeRequired: boolean;
  backend: 'embedded' | 'twilio';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const BAD_CONFIG = new ApiError(
  502,
  'bad_response',
  'The server sent an unreadable configuration.',
);

export function parseConfig(body: unknown): AppConfig {
  if (!isRecord(body)) throw BAD_CONFIG;
  const { googleClientId, googleScriptUrl, localSignIn, passcodeRequired, backend } = body;
  if (googleClientId !== null && (typeof googleClientId !== 'string' || googleClientId === ''))
    throw BAD_CONFIG;
  if (typeof googleScriptUrl !== 'string') throw BAD_CONFIG;
  if (typeof localSignIn !== 'boolean' || typeof passcodeRequired !== 'boolean') throw BAD_CONFIG;
  if (backend !== 'embedded' && backend !== 'twilio') throw BAD_CONFIG;
  return { googleClientId, googleScriptUrl, localSignIn, passcodeRequired, backend };
}

export async function loadConfig(api: ApiClient): Promise<AppConfig> {
  return parseConfig(await api.request('GET', '/api/config'));
}
