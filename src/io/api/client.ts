/** An /api failure with the server's `{ error: { code, message } }`, ready to show to the user. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const NETWORK_ERROR_MESSAGE =
  'Could not reach the server. Check your connection and try again.';

export interface ApiClient {
  /** Resolves the parsed JSON body (undefined for 204); rejects with {@link ApiError}. */
  request(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
    options?: { signal?: AbortSignal },
  ): Promise<unknown>;
}

export interface ApiClientOptions {
  fetch: typeof fetch;
  /** Called for every 401: the session machine decides whether that means "expired". */
  onUnauthorized: () => void;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The {@link ApiError} for an error answer of the API (its `{ error: { code, message } }` body). */
export function errorFrom(status: number, body: unknown): ApiError {
  const error = isRecord(body) ? body.error : undefined;
  if (isRecord(error) && typeof error.message === 'string' && error.message !== '') {
    return new ApiError(
      status,
      typeof error.code === 'string' ? error.code : 'error',
      error.message,
    );
  }
  return new ApiError(
    status,
    'unexpected_response',
    `The server answered with an error (HTTP ${status}).`,
  );
}

/** The one way the browser talks to /api: JSON in and out, same-origin cookies, 401s reported. */
export function createApiClient({ fetch: fetchImpl, onUnauthorized }: ApiClientOptions): ApiClient {
  return {
    async request(method, path, body, options) {
      const init: RequestInit = {
        method,
        ...(options?.signal ? { signal: options.signal } : {}),
        credentials: 'same-origin',
        headers: { Accept: 'application/json' },
      };
      if (body !== undefined) {
        init.headers = { Accept: 'application/json', 'Content-Type': 'application/json' };
        init.body = JSON.stringify(body);
      }
      let response: Response;
      try {
        response = await fetchImpl(path, init);
      } catch {
        throw new ApiError(0, 'network', NETWORK_ERROR_MESSAGE);
      }
      const parsed = await readJson(response);
      if (response.status === 401) onUnauthorized();
      if (!response.ok) throw errorFrom(response.status, parsed);
      return parsed;
    },
  };
}
