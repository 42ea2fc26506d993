/**
 * The one way the browser talks to `/api`: `api.call(API.route, params?, body?)` over the routes
 * of src/contracts/api.ts. It builds the path from the route (`pathOf`), checks the body against
 * the route's schema before sending, sends JSON with same-origin cookies, reports every 401 (the
 * session machine decides whether that means "expired"), turns `{ error: { code, message } }` into
 * an {@link ApiError}, and reads the answer with the route's answer schema: an answer that does not
 * match is an `ApiError` 502 `bad_response` with a sentence a person can read, never half a value.
 */
import * as v from 'valibot';
import {
  pathOf,
  type AnswerOf,
  type BodyOf,
  type Method,
  type ParamsOf,
  type Route,
} from '../../contracts/api-route';

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

/** What a person reads when an answer does not match its route (unless the call says better). */
export const UNREADABLE_ANSWER =
  'The server sent an answer this page cannot read. Please try again.';

export interface CallOptions {
  signal?: AbortSignal;
  /**
   * The sentence for an answer that does not match the route's schema, or how to word it from the
   * field at fault (a dot path, '' for the whole answer).
   */
  unreadable?: string | ((field: string) => string);
}

type Params<R extends Route> = [ParamsOf<R['path']>] extends [never]
  ? undefined | Record<string, never>
  : Record<ParamsOf<R['path']>, string>;

/** `call`'s arguments after the route: its params (when its path has some), then its body. */
export type CallArgs<R extends Route> = R['body'] extends null
  ? [ParamsOf<R['path']>] extends [never]
    ? [params?: undefined | Record<string, never>, body?: undefined, options?: CallOptions]
    : [params: Params<R>, body?: undefined, options?: CallOptions]
  : [params: Params<R>, body: BodyOf<R>, options?: CallOptions];

export interface ApiClient {
  /**
   * Calls `route` (its path filled with `params`, `body` checked by its schema) and resolves with
   * the answer as its schema reads it (undefined for a route without one); rejects with
   * {@link ApiError}.
   */
  call<R extends Route>(route: R, ...args: CallArgs<R>): Promise<AnswerOf<R>>;
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

/** `answer` read by `route`'s answer schema, or the 502 a person can read. */
export function readAnswer<R extends Route>(
  route: R,
  answer: unknown,
  unreadable: CallOptions['unreadable'],
): AnswerOf<R> {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- undefined is the answer of a route without one
  if (route.answer === null) return undefined as AnswerOf<R>;
  const result = v.safeParse(route.answer, answer);
  if (result.success) return result.output as AnswerOf<R>;
  const field = v.getDotPath(result.issues[0]) ?? '';
  const message =
    typeof unreadable === 'function' ? unreadable(field) : (unreadable ?? UNREADABLE_ANSWER);
  throw new ApiError(502, 'bad_response', message);
}

/** The one way the browser talks to /api: JSON in and out, same-origin cookies, 401s reported. */
export function createApiClient({ fetch: fetchImpl, onUnauthorized }: ApiClientOptions): ApiClient {
  async function request(
    method: Method,
    path: string,
    body?: unknown,
    options?: { signal?: AbortSignal },
  ): Promise<unknown> {
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
  }

  return {
    async call<R extends Route>(route: R, ...[params, body, options]: CallArgs<R>) {
      if (route.body !== null) {
        // The server checks it with the same schema and the same words: refused here, nothing sent.
        const checked = v.safeParse(route.body, body);
        if (!checked.success)
          throw new ApiError(400, 'bad_request', checked.issues[0]?.message ?? 'Bad request');
      }
      const path = (pathOf as (route: Route, params?: Record<string, string>) => string)(
        route,
        params,
      );
      const answer = await request(
        route.method,
        path,
        route.body === null ? undefined : body,
        options?.signal ? { signal: options.signal } : undefined,
      );
      return readAnswer(route, answer, options?.unreadable);
    },
  };
}
