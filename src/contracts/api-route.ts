/**
 * How an `/api` route is written down (src/contracts/api.ts lists them all): its method, its path
 * with `:params`, the schema of its body and of its answer, and the path with its params filled in.
 */
import * as v from 'valibot';

// valibot's own generic bound for "any schema".
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnySchema = v.GenericSchema<any, any>;

/** `:name` segments of a path, as a union of names. */
export type ParamsOf<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamsOf<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

export interface Route<
  M extends Method = Method,
  P extends string = string,
  B extends AnySchema | null = AnySchema | null,
  A extends AnySchema | null = AnySchema | null,
> {
  readonly method: M;
  readonly path: P;
  readonly body: B;
  readonly answer: A;
}

export type BodyOf<R extends Route> = R['body'] extends AnySchema ? v.InferInput<R['body']> : never;
export type AnswerOf<R extends Route> = R['answer'] extends AnySchema
  ? v.InferOutput<R['answer']>
  : undefined;

/** A route, typed by what it is given. */
export const route = <
  M extends Method,
  P extends string,
  B extends AnySchema | null,
  A extends AnySchema | null,
>(
  method: M,
  path: P,
  body: B,
  answer: A,
): Route<M, P, B, A> => ({ method, path, body, answer });

/** The path of `route` with its params filled in (each encoded as one segment). */
export function pathOf<P extends string>(
  route: Route<Method, P>,
  ...[params]: ParamsOf<P> extends never ? [] : [Record<ParamsOf<P>, string>]
): string {
  const values = (params ?? {}) as Record<string, string>;
  return route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${route.path}: no value for :${name}`);
    return encodeURIComponent(value);
  });
}

/** The params of `pathname` if it is this route's path, else null. */
export function matchPath(path: string, pathname: string): Record<string, string> | null {
  const pattern = path.split('/');
  const segments = pathname.split('/');
  if (pattern.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i] ?? '';
    const actual = segments[i] ?? '';
    if (expected.startsWith(':')) {
      if (actual === '') return null;
      params[expected.slice(1)] = actual;
    } else if (expected !== actual) return null;
  }
  return params;
}

// Field messages match what the server has always said (tests/unit/server/bad-bodies.test.ts).
export const text = (name: string) => v.string(`Field ${name} must be a string`);
export const body = <E extends v.ObjectEntries>(entries: E) =>
  v.strictObject(entries, 'Request body must be a JSON object');
