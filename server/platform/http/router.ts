import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from './errors';
import type { RequestOrigin } from './origin';
import type { Route as ApiRoute } from '../../../src/contracts/api-route';

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** Path parameters of the matched route, e.g. { id: '42' } for /api/things/:id. */
  params: Readonly<Record<string, string>>;
  /** Epoch milliseconds when the request arrived. */
  now: number;
  /** The origin the browser used (validated Host header). */
  origin: RequestOrigin;
}

export type Handler = (ctx: RequestContext) => void | Promise<void>;

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

interface Route {
  pattern: readonly string[];
  handlers: Map<string, Handler>;
}

export interface Match {
  handler: Handler;
  params: Record<string, string>;
}

/**
 * A small exact-path router for /api. A path that exists under another method answers 405 with
 * an Allow header; an unknown path answers 404. HEAD is served by the GET handler.
 */
export class Router {
  private readonly routes: Route[] = [];

  /** `handler` for an /api route as src/contracts/api.ts defines it (its method and path). */
  route(route: ApiRoute, handler: Handler): this {
    return this.on(route.method, route.path, handler);
  }

  /** `handler` for `method` and `path` (Twilio's webhooks, whose paths are TWILIO_PATHS). */
  on(method: Method, path: string, handler: Handler): this {
    const pattern = path.split('/');
    let route = this.routes.find((r) => r.pattern.join('/') === pattern.join('/'));
    if (!route) {
      route = { pattern, handlers: new Map() };
      this.routes.push(route);
    }
    if (route.handlers.has(method)) throw new Error(`duplicate route ${method} ${path}`);
    route.handlers.set(method, handler);
    return this;
  }

  /** The handler for method + path, or an HttpError (404 / 405) to answer with. */
  match(method: string, pathname: string): Match {
    const segments = pathname.split('/');
    for (const route of this.routes) {
      const params = matchPattern(route.pattern, segments);
      if (!params) continue;
      const handler = route.handlers.get(method === 'HEAD' ? 'GET' : method);
      if (handler) return { handler, params };
      const allow = [...route.handlers.keys()];
      if (allow.includes('GET')) allow.push('HEAD');
      throw new HttpError(
        405,
        'method_not_allowed',
        `${method} is not allowed on ${pathname}; use ${allow.join(', ')}`,
        { Allow: allow.join(', ') },
      );
    }
    throw new HttpError(404, 'not_found', `No API endpoint at ${pathname}`);
  }
}

function matchPattern(
  pattern: readonly string[],
  segments: readonly string[],
): Record<string, string> | null {
  if (pattern.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i] ?? '';
    const actual = segments[i] ?? '';
    if (expected.startsWith(':')) {
      if (actual === '') return null;
      params[expected.slice(1)] = actual;
    } else if (expected !== actual) {
      return null;
    }
  }
  return params;
}
