/**
 * The answers a page's first API requests would get, carried in its HTML by the server
 * (server/platform/http/static.ts) so the app starts without asking: `GET /api/session` and
 * `GET /api/config` on every page. Each is used once, by the first GET of its path; everything
 * after (a retry, a re-check when the tab comes back) goes to the server.
 */
import { FIRST_ANSWERS_ID, type FirstAnswer } from '../../contracts/api-session';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads (and removes) the answers the page carries. Anything malformed is left out: the app then
 * asks the server, as it does when the page carries nothing (the Vite dev server, a stale page).
 */
export function readFirstAnswers(doc: Pick<Document, 'getElementById'>): Map<string, FirstAnswer> {
  const answers = new Map<string, FirstAnswer>();
  const element = doc.getElementById(FIRST_ANSWERS_ID);
  if (element === null) return answers;
  element.remove();
  let parsed: unknown;
  try {
    parsed = JSON.parse(element.textContent ?? '');
  } catch {
    return answers;
  }
  if (!isRecord(parsed)) return answers;
  for (const [path, answer] of Object.entries(parsed)) {
    if (!path.startsWith('/api/') || !isRecord(answer)) continue;
    const { status } = answer;
    if (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 599)
      continue;
    answers.set(path, { status, body: answer.body });
  }
  return answers;
}

/**
 * `fetch` that answers the first GET of each carried path from `answers` (as the server would have,
 * a JSON body with its status) and sends everything else on to `fetchImpl`.
 */
export function withFirstAnswers(
  fetchImpl: typeof fetch,
  answers: Map<string, FirstAnswer>,
): typeof fetch {
  return (input, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    const answer = typeof input === 'string' && method === 'GET' ? answers.get(input) : undefined;
    if (answer === undefined || typeof input !== 'string') return fetchImpl(input, init);
    answers.delete(input);
    const text = answer.body === undefined ? '' : JSON.stringify(answer.body);
    // Read from memory: a Response's body stream resolves a task later, behind whatever the page
    // is doing then, which kept the router from its first screen about 20 ms longer here
    // (docs/performance.md).
    const response = new Response(answer.body === undefined ? null : text, {
      status: answer.status,
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
    });
    return Promise.resolve(
      Object.assign(response, {
        text: () => Promise.resolve(text),
        json: () => new Promise<unknown>((resolve) => resolve(JSON.parse(text))),
      }),
    );
  };
}
