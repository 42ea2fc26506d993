import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from './errors';
import type { RequestOrigin } from './origin';
import { matchPath, type Route as ApiRoute } from '../../../src/contracts/api-route';

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
  path: string;
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
    let route = this.routes.find((r) => r.path === path);
    if (!route) {
      route = { path, handlers: new Map() };
      this.routes.push(route);
    }
    if (route.handlers.has(method)) throw new Error(`duplicate route ${method} ${path}`);
    route.handlers.set(method, handler);
    return this;
  }

  /** The handler for method + path, or an HttpError (404 / 405) to answer with. */
  match(method: string, pathname: string): Match {
    for (const route of this.routes) {
      const params = matchPath(route.path, pathname);
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
