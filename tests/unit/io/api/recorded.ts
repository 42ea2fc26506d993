/**
 * The real API client (src/io/api/client.ts) over a fetch that records each request and answers as
 * the test says: for the mutators' tests, which check what is sent and what an answer makes of it.
 */
import { createApiClient, type ApiClient } from '../../../../src/io/api/client';

export interface RecordedRequest {
  method: string;
  url: string;
  body: unknown;
}

/** What the server answers: a status and a JSON body (null: no body). */
export type Answer = { status: number; body: unknown };

/**
 * An API client whose every request is answered by `answer`: a fixed body answered 200, null
 * answered 204, or a function of the request ({@link RecordedRequest}) giving the {@link Answer}.
 */
export function apiAnswering(answer: unknown): {
  api: ApiClient;
  requests: RecordedRequest[];
} {
  const requests: RecordedRequest[] = [];
  const api = createApiClient({
    fetch: (url, init) => {
      const request = {
        method: init?.method ?? 'GET',
        url: url as string,
        body: typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined,
      };
      requests.push(request);
      const { status, body } =
        typeof answer === 'function'
          ? (answer as (r: RecordedRequest) => Answer)(request)
          : answer === null
            ? { status: 204, body: null }
            : { status: 200, body: answer };
      return Promise.resolve(
        body === null
          ? new Response(null, { status })
          : new Response(JSON.stringify(body), { status }),
      );
    },
    onUnauthorized: () => {},
  });
  return { api, requests };
}
