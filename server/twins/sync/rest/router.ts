/**
 * Routes a tunnelled REST request to its handler. Unknown paths answer 404 and known paths with another method 405,
 * both with a Twilio-shaped error body; a handler's SyncRestError becomes its status and body.
 */
import { errors, SyncRestError, type ObjectKind } from '../errors';
import type { Ctx, RestRequest, RestResponse } from './context';
import { insightsQuery } from './insights';
import * as lists from './lists';
import * as maps from './maps';
import { createObject, deleteObject, getObject, updateObject } from './objects';
import { publishMessage } from './streams';
import { subscriptions } from './subscriptions';

type Handler = (ctx: Ctx, req: RestRequest, ids: string[]) => RestResponse;
type Route = { pattern: string[]; methods: Partial<Record<string, Handler>> };

const kinds: Record<string, ObjectKind> = {
  Documents: 'document',
  Lists: 'list',
  Maps: 'map',
  Streams: 'stream',
};

const routes: Route[] = [
  { pattern: ['v4', 'Subscriptions'], methods: { POST: (c, r) => subscriptions(c, r) } },
  {
    pattern: ['v3', 'Insights', '*', 'Items'],
    methods: { POST: (c, r, [i]) => insightsQuery(c, i!, r) },
  },
  {
    pattern: ['v3', 'Lists', '*', 'Items'],
    methods: {
      GET: (c, r, [l]) => lists.listItems(c, l!, r),
      POST: (c, r, [l]) => lists.pushItem(c, l!, r),
    },
  },
  {
    pattern: ['v3', 'Lists', '*', 'Items', '*'],
    methods: {
      GET: (c, _r, [l, i]) => lists.getItem(c, l!, i!),
      POST: (c, r, [l, i]) => lists.updateItem(c, l!, i!, r),
      DELETE: (c, r, [l, i]) => lists.deleteItem(c, l!, i!, r),
    },
  },
  {
    pattern: ['v3', 'Lists', '*', 'Context'],
    methods: {
      GET: (c, _r, [l]) => lists.getContext(c, l!),
      POST: (c, r, [l]) => lists.updateContext(c, l!, r),
    },
  },
  {
    pattern: ['v3', 'Maps', '*', 'Items'],
    methods: {
      GET: (c, r, [m]) => maps.mapItems(c, m!, r),
      POST: (c, r, [m]) => maps.createItem(c, m!, r),
    },
  },
  {
    pattern: ['v3', 'Maps', '*', 'Items', '*'],
    methods: {
      GET: (c, _r, [m, k]) => maps.getItem(c, m!, k!),
      PUT: (c, r, [m, k]) => maps.putItem(c, m!, k!, r),
      POST: (c, r, [m, k]) => maps.postItem(c, m!, k!, r),
      DELETE: (c, r, [m, k]) => maps.deleteItem(c, m!, k!, r),
    },
  },
  {
    pattern: ['v3', 'Streams', '*', 'Messages'],
    methods: { POST: (c, r, [s]) => publishMessage(c, s!, r) },
  },
  ...Object.entries(kinds).flatMap(([name, kind]): Route[] => [
    { pattern: ['v3', name], methods: { POST: (c, r) => createObject(c, kind, r) } },
    {
      pattern: ['v3', name, '*'],
      methods: {
        GET: (c, r, [id]) => getObject(c, kind, id!, r),
        POST: (c, r, [id]) => updateObject(c, kind, id!, r),
        DELETE: (c, _r, [id]) => deleteObject(c, kind, id!),
      },
    },
  ]),
];

function match(pattern: string[], segments: string[]): string[] | null {
  if (pattern.length !== segments.length) return null;
  const ids: string[] = [];
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '*') ids.push(segments[i]!);
    else if (pattern[i] !== segments[i]) return null;
  }
  return ids;
}

/** Map item keys may be empty (PUT …/Items/ → 54209); every other `*` must be non-empty. */
function emptyIdAllowed(pattern: string[], index: number): boolean {
  return pattern[1] === 'Maps' && pattern[3] === 'Items' && index === 1;
}

export function route(ctx: Ctx, req: RestRequest): RestResponse {
  const path = '/' + req.segments.join('/');
  for (const r of routes) {
    const ids = match(r.pattern, req.segments);
    if (!ids) continue;
    if (ids.some((id, i) => id === '' && !emptyIdAllowed(r.pattern, i)))
      throw errors.entityWithoutId();
    const handler = r.methods[req.method];
    if (!handler) throw errors.methodNotAllowed(req.method, path);
    return handler(ctx, req, ids);
  }
  throw errors.notFound(path);
}

/** Runs a request to completion: never throws, unexpected failures become 500 (and nothing was committed). */
export function handle(
  ctx: Ctx,
  req: RestRequest,
  onUnexpected: (e: unknown) => void,
): RestResponse {
  try {
    return route(ctx, req);
  } catch (e) {
    if (e instanceof SyncRestError) return { status: e.status, body: e.body() };
    onUnexpected(e);
    const err = errors.internal();
    return { status: err.status, body: err.body() };
  }
}
