import { configure, render, type RenderResult } from '@testing-library/react';
import { createMemoryRouter, type DataRouter } from 'react-router-dom';
import { App } from '../../../src/ui/app/App';
import { createAppActors, startAppActors, type AppActors } from '../../../src/app/page';
import { createAppRouter } from '../../../src/ui/app/router';

// Lazy route chunks load through the module graph; on a busy machine that can take a while: the
// first screen of a file took over 5 s with the checks and the integration suites beside the unit
// suites (under the unit project's 20 s per test; no unit test is a speed test).
configure({ asyncUtilTimeout: 15_000 });

export interface FakeUser {
  identity: string;
  name: string;
  email: string;
  role: 'admin' | 'agent';
  picture: string | null;
}

export const admin: FakeUser = {
  identity: 'u-ada',
  name: 'Ada Admin',
  email: 'ada@example.com',
  role: 'admin',
  picture: null,
};
export const agent: FakeUser = {
  identity: 'u-bo',
  name: 'Bo Agent',
  email: 'bo@example.com',
  role: 'agent',
  picture: null,
};

export interface FakeConfig {
  googleClientId: string | null;
  googleScriptUrl: string;
  localSignIn: boolean;
  passcodeRequired: boolean;
  backend: 'embedded' | 'twilio';
}

export const localConfig: FakeConfig = {
  googleClientId: null,
  googleScriptUrl: '/gsi/client',
  localSignIn: true,
  passcodeRequired: false,
  backend: 'embedded',
};

type Handler = (body: unknown) => Response | Promise<Response>;

const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

export const unauthorized = (): Response =>
  json(401, { error: { code: 'unauthenticated', message: 'Sign in first' } });

/**
 * A stand-in for the server's session API with a current user; tests replace single routes.
 * Every request is recorded as "METHOD path".
 */
export class FakeServer {
  user: FakeUser | null;
  config: FakeConfig = localConfig;
  requests: string[] = [];
  /** The user the next local sign-in returns. */
  signInAs: FakeUser = admin;
  overrides = new Map<string, Handler>();

  constructor(user: FakeUser | null) {
    this.user = user;
  }

  fetch: typeof fetch = async (input, init) => {
    const key = `${init?.method ?? 'GET'} ${typeof input === 'string' ? input : 'non-string url'}`;
    this.requests.push(key);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    const override = this.overrides.get(key);
    if (override) return override(body);
    switch (key) {
      case 'GET /api/config':
        return json(200, this.config);
      case 'GET /api/session':
        return this.user === null ? unauthorized() : json(200, { user: this.user });
      case 'POST /api/session/local':
        this.user = this.signInAs;
        return json(200, { user: this.user });
      case 'POST /api/session/logout':
        this.user = null;
        return new Response(null, { status: 204 });
      case 'GET /api/presence/settings':
        return json(200, { ttlSeconds: 75, heartbeatSeconds: 25 });
      case 'GET /api/token':
        // The signed-in frame starts the Sync layer, which these shell tests do not exercise:
        // its token request stays pending, so no Sync error toast races the ones under test.
        return new Promise<Response>(() => undefined);
      default:
        return json(404, { error: { code: 'not_found', message: `No route ${key}` } });
    }
  };
}

export interface RenderedApp extends RenderResult {
  actors: AppActors;
  router: DataRouter;
  server: FakeServer;
  /** pathname + search + hash of the router's current location. */
  path: () => string;
}

/** The real app (actors, guard, routes, screens) in a memory router, against a fake server. */
export function renderApp(entry: string, server: FakeServer): RenderedApp {
  const actors = createAppActors({ fetch: server.fetch, currentPath: () => current() });
  startAppActors(actors);
  const router = createAppRouter(actors, (routes) =>
    createMemoryRouter(routes, { initialEntries: [entry] }),
  );
  const current = (): string => {
    const { pathname, search, hash } = router.state.location;
    return `${pathname}${search}${hash}`;
  };
  const result = render(<App actors={actors} router={router} />);
  return { ...result, actors, router, server, path: current };
}
