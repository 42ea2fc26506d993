/**
 * How a record is defined once: one valibot object schema is what a write must satisfy (the UI's
 * mutators and the server's /api routes check it; a browser's write to Sync that breaks it is put
 * right, server/records/put-right.ts), and the same schema, read leniently, is how whatever is
 * stored is decoded for a screen or the server.
 *
 * Decoding never throws and never rewrites what is stored. Field by field:
 * - a value that passes the field's schema is taken as parsed (trimmed, defaulted);
 * - a value of the right shape that breaks a rule (too long, not one of the choices a pipe checks)
 *   is kept as stored, so the screen can still show it, and the rule is reported;
 * - a list keeps its items that have the right shape and leaves the others out, each reported;
 * - anything else reads as the record's fallback for that field, reported as dropped.
 * Records that cannot stand without some fields (a hold without a caller) name them `essential`:
 * an essential field that does not pass its schema drops the whole record (`value` null). Each distinct report reaches the issue sink
 * once ({@link setIssueSink}): stored data that no longer matches is logged, not fixed silently.
 */
import * as v from 'valibot';

/** Plain JSON data as Sync stores it (a map item's, list item's or document's `data`). */
export type JsonObject = { [key: string]: unknown };

/** What a decode set aside or kept against a rule: the field (a dot path) and why. */
export interface Issue {
  field: string;
  reason: string;
  /** True when the value was left out (or the fallback taken); false when kept as stored. */
  dropped: boolean;
}

export interface Decoded<T> {
  value: T;
  issues: Issue[];
}

/** A write's verdict: the value as it will be stored, or the first field at fault and why. */
export type Checked<T> =
  | { ok: true; value: T }
  | { ok: false; field: string; reason: string; issues: { field: string; reason: string }[] };

// valibot's own generic bounds for "any object schema" and "any schema".
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySchema = v.BaseSchema<any, any, any>;
export type AnyObjectSchema = v.ObjectSchema<
  v.ObjectEntries,
  v.ErrorMessage<v.ObjectIssue> | undefined
>;

export interface RecordContract<S extends AnyObjectSchema, V> {
  /** The record's name in reports ("contact", "call"). */
  readonly name: string;
  /** What a stored value must be: writes are checked against it. */
  readonly schema: S;
  /** Whatever is stored, read as the record (see the module comment). */
  decode(data: unknown): Decoded<V>;
  /** `decode(data).value`. */
  read(data: unknown): V;
  /** A value about to be written, checked strictly. */
  check(data: unknown): Checked<v.InferOutput<S>>;
}

type Output<S extends AnyObjectSchema> = v.InferOutput<S>;

let sink: (record: string, issue: Issue) => void = () => {};
const told = new Set<string>();

/**
 * Where decode reports go, each distinct one once (the browser: the console; the server: its log).
 * Until set, nothing is reported.
 */
export function setIssueSink(report: (record: string, issue: Issue) => void): void {
  sink = report;
  told.clear();
}

function tell(record: string, issues: readonly Issue[]): void {
  for (const issue of issues) {
    const key = `${record}\u0000${issue.field}\u0000${issue.reason}\u0000${issue.dropped}`;
    if (told.has(key)) continue;
    if (told.size > 1000) told.clear();
    told.add(key);
    sink(record, issue);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

type Inner = AnySchema & {
  pipe?: AnySchema[];
  entries?: v.ObjectEntries;
  item?: AnySchema;
  wrapped?: AnySchema;
  default?: unknown;
};

/** The schema a pipe starts from, or the schema itself. */
function rootOf(schema: AnySchema): Inner {
  const s = schema as Inner;
  return s.pipe && s.pipe[0] !== undefined && s.pipe[0] !== schema ? rootOf(s.pipe[0]) : s;
}

/** The schema an optional or nullable one wraps (through pipes), or the schema itself. */
function unwrapped(schema: AnySchema): Inner {
  const s = rootOf(schema);
  return (s.type === 'optional' || s.type === 'nullable' || s.type === 'nullish') && s.wrapped
    ? unwrapped(s.wrapped)
    : s;
}

/** The schema without its rules: a pipe's root, and the same for what objects and lists hold. */
function shapeOf(schema: AnySchema): AnySchema {
  const s = rootOf(schema);
  if (s.type === 'object' && s.entries) {
    const entries: v.ObjectEntries = {};
    for (const [key, entry] of Object.entries(s.entries)) entries[key] = shapeOf(entry);
    return v.object(entries);
  }
  if (s.type === 'array' && s.item) return v.array(shapeOf(s.item));
  if (s.type === 'optional' && s.wrapped) return v.optional(shapeOf(s.wrapped), s.default as never);
  if (s.type === 'nullable' && s.wrapped) return v.nullable(shapeOf(s.wrapped), s.default as never);
  if (s.type === 'nullish' && s.wrapped) return v.nullish(shapeOf(s.wrapped), s.default as never);
  return s;
}

const shapes = new WeakMap<AnySchema, AnySchema>();
const shapeFor = (schema: AnySchema): AnySchema => {
  let shape = shapes.get(schema);
  if (!shape) shapes.set(schema, (shape = shapeOf(schema)));
  return shape;
};

function firstReason(issues: readonly v.BaseIssue<unknown>[] | undefined): string {
  return issues?.[0]?.message ?? 'not valid';
}

function pathOf(issue: v.BaseIssue<unknown>): string {
  return v.getDotPath(issue) ?? '';
}

const join = (path: string, key: string | number): string =>
  path === '' ? String(key) : `${path}.${key}`;

type Read = { ok: true; value: unknown } | { ok: false; reason: string };

/**
 * `value` read against `schema` leniently (the module comment's rules), reporting into `issues`
 * under `path`. Fails only when nothing of the right shape is there.
 */
function readValue(schema: AnySchema, value: unknown, path: string, issues: Issue[]): Read {
  const strict = v.safeParse(schema, value);
  if (strict.success) return { ok: true, value: strict.output };
  const reason = firstReason(strict.issues);
  const inner = unwrapped(schema);
  if (inner.type === 'object' && inner.entries && isObject(value)) {
    const before = issues.length;
    const out: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(inner.entries)) {
      const read = readValue(entry, value[key], join(path, key), issues);
      if (read.ok) {
        if (read.value !== undefined) out[key] = read.value;
        continue;
      }
      const fallback = v.safeParse(entry, undefined);
      if (!fallback.success) return { ok: false, reason: `${key}: ${read.reason}` };
      issues.push({ field: join(path, key), reason: read.reason, dropped: true });
      if (fallback.output !== undefined) out[key] = fallback.output;
    }
    if (issues.length === before) issues.push({ field: path, reason, dropped: false });
    return { ok: true, value: out };
  }
  if (inner.type === 'array' && inner.item && Array.isArray(value)) {
    const before = issues.length;
    const kept: unknown[] = [];
    value.forEach((element, i) => {
      const read = readValue(inner.item!, element, join(path, i), issues);
      if (read.ok) kept.push(read.value);
      else issues.push({ field: join(path, i), reason: read.reason, dropped: true });
    });
    // Every item read well, yet the list breaks a rule of its own (too many items).
    if (issues.length === before) issues.push({ field: path, reason, dropped: false });
    return { ok: true, value: kept };
  }
  const shaped = v.safeParse(shapeFor(schema), value);
  if (shaped.success) {
    issues.push({ field: path, reason, dropped: false });
    return { ok: true, value: shaped.output };
  }
  return { ok: false, reason };
}

/**
 * One record: `schema` for writes, `fallback` for each field a decode cannot read, and the
 * `essential` fields without which the stored value is no record at all (decode gives null).
 */
export function defineRecord<S extends AnyObjectSchema>(
  name: string,
  schema: S,
  fallback: Output<S>,
): RecordContract<S, Output<S>>;
export function defineRecord<S extends AnyObjectSchema>(
  name: string,
  schema: S,
  fallback: Output<S>,
  essential: readonly (keyof Output<S> & string)[],
): RecordContract<S, Output<S> | null>;
export function defineRecord<S extends AnyObjectSchema>(
  name: string,
  schema: S,
  fallback: Output<S>,
  essential: readonly string[] = [],
): RecordContract<S, Output<S> | null> {
  function decode(data: unknown): Decoded<Output<S> | null> {
    const raw = isObject(data) ? data : {};
    const issues: Issue[] = [];
    if (!isObject(data)) issues.push({ field: '', reason: 'not an object', dropped: true });
    const out: Record<string, unknown> = {};
    let lost = false;
    for (const [key, entry] of Object.entries(schema.entries)) {
      const before = issues.length;
      const read = readValue(entry, raw[key], key, issues);
      // An essential field must be as the schema says; kept against a rule is not enough.
      if (essential.includes(key) && issues.length > before) lost = true;
      if (read.ok) {
        if (read.value !== undefined) out[key] = read.value;
        continue;
      }
      const taken = (fallback as Record<string, unknown>)[key];
      if (taken !== undefined) out[key] = taken;
      issues.push({ field: key, reason: read.reason, dropped: true });
      if (essential.includes(key)) lost = true;
    }
    tell(name, issues);
    return { value: lost ? null : out, issues };
  }

  return {
    name,
    schema,
    decode,
    read: (data) => decode(data).value,
    check(data) {
      const result = v.safeParse(schema, data);
      if (result.success) return { ok: true, value: result.output };
      const all = result.issues.map((issue) => ({ field: pathOf(issue), reason: issue.message }));
      const first = all[0] ?? { field: '', reason: 'not valid' };
      return { ok: false, field: first.field, reason: first.reason, issues: all };
    },
  };
}

/** Epoch milliseconds; an ISO 8601 string as older writers stored it reads as its instant. */
export const timestamp = v.union(
  [
    v.pipe(v.number(), v.finite()),
    v.pipe(
      v.string(),
      v.transform((text) => Date.parse(text)),
      v.finite('Expected a time'),
    ),
  ],
  'Expected a time (epoch milliseconds)',
);

/** Control characters (a name or a label never holds one). */
// eslint-disable-next-line no-control-regex
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;
