/**
 * Seed section 5: every command is checked here before anything is sent. Each check returns the
 * failure to report, or null when the value is acceptable. Values are `unknown` on purpose: callers
 * are JavaScript at runtime whatever the types say.
 */
import { SyncFailure, syncErrors } from './sync-errors';
import type { JsonObject } from './record';

/** The order items are read in. */
export type SortOrder = 'asc' | 'desc';
/** An item's own settings sent with a write. */
export interface ItemMetadata {
  ttl?: number;
}
/** A mutate callback: receives the current data and returns the new data (null to abort). */
export type Mutator = (current: JsonObject) => JsonObject | null;

const invalid = syncErrors.invalidArgument;

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

const isNonNegativeInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0;

export function checkIndex(index: unknown): SyncFailure | null {
  return isNonNegativeInteger(index)
    ? null
    : invalid(`index must be a non-negative integer, got ${describe(index)}`);
}

export function checkTtl(ttl: unknown, what = 'ttl'): SyncFailure | null {
  if (ttl === undefined || isNonNegativeInteger(ttl)) return null;
  return invalid(`${what} must be a non-negative integer or absent, got ${describe(ttl)}`);
}

/** A document's ttl, unlike an item's, must be given. */
export function checkRequiredTtl(ttl: unknown): SyncFailure | null {
  return isNonNegativeInteger(ttl)
    ? null
    : invalid(`ttl must be a non-negative integer, got ${describe(ttl)}`);
}

export function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export function checkData(data: unknown): SyncFailure | null {
  return isPlainObject(data) ? null : invalid(`data must be a plain object, got ${describe(data)}`);
}

export function checkMutator(mutator: unknown): SyncFailure | null {
  return typeof mutator === 'function'
    ? null
    : invalid(`the mutate callback must be a function, got ${describe(mutator)}`);
}

export function checkMapKey(key: unknown): SyncFailure | null {
  if (typeof key !== 'string')
    return invalid(`a map item key must be a string, got ${describe(key)}`);
  return key === '' ? syncErrors.emptyMapKey() : null;
}

export function checkPageSize(pageSize: unknown): SyncFailure | null {
  if (pageSize === undefined) return null;
  return typeof pageSize === 'number' && Number.isInteger(pageSize) && pageSize > 0
    ? null
    : invalid(`pageSize must be a positive integer or absent, got ${describe(pageSize)}`);
}

export function checkOrder(order: unknown): SyncFailure | null {
  return order === undefined || order === 'asc' || order === 'desc'
    ? null
    : invalid(`order must be "asc" or "desc" or absent, got ${describe(order)}`);
}

export function checkQueryString(query: unknown): SyncFailure | null {
  return query === null || query === undefined || typeof query !== 'string'
    ? syncErrors.invalidQuery()
    : null;
}

/** An id is needed for every mode except create_new. */
export function checkOpenId(id: unknown, mode: unknown): SyncFailure | null {
  if (mode !== 'open_or_create' && mode !== 'open_existing' && mode !== 'create_new') {
    return invalid(
      `mode must be open_or_create, open_existing or create_new, got ${describe(mode)}`,
    );
  }
  if (id === undefined && mode === 'create_new') return null;
  if (typeof id !== 'string' || id === '') return syncErrors.entityWithoutId();
  return null;
}

const first = (...checks: Array<SyncFailure | null>): SyncFailure | null =>
  checks.find((c) => c !== null) ?? null;

export function checkListQuery(query: {
  from?: unknown;
  pageSize?: unknown;
  order?: unknown;
}): SyncFailure | null {
  const from =
    query.from === undefined || isNonNegativeInteger(query.from)
      ? null
      : invalid(`from must be a non-negative integer or absent, got ${describe(query.from)}`);
  return first(from, checkPageSize(query.pageSize), checkOrder(query.order));
}

export function checkMapQuery(query: {
  from?: unknown;
  pageSize?: unknown;
  order?: unknown;
}): SyncFailure | null {
  const from = query.from === undefined ? null : checkMapKey(query.from);
  return first(from, checkPageSize(query.pageSize), checkOrder(query.order));
}

type WithTtl = { ttl?: number };

/** Commands a list accepts. `requestId` lets a caller match the emitted result. */
export type ListCommand =
  | ({ type: 'list.push'; data: JsonObject } & WithTtl)
  | ({ type: 'list.set'; index: number; data: JsonObject } & WithTtl)
  | ({ type: 'list.update'; index: number; data: JsonObject } & WithTtl)
  | ({ type: 'list.mutate'; index: number; mutator: Mutator } & WithTtl)
  | { type: 'list.remove'; index: number }
  | { type: 'list.get'; index: number }
  | { type: 'list.getItems'; from?: number; pageSize?: number; order?: SortOrder }
  | { type: 'list.setTtl'; ttl: number }
  | { type: 'list.setItemTtl'; index: number; ttl: number }
  | { type: 'list.removeList' };

export type MapCommand =
  | ({ type: 'map.set'; key: string; data: JsonObject } & WithTtl)
  | ({ type: 'map.update'; key: string; data: JsonObject } & WithTtl)
  | ({ type: 'map.mutate'; key: string; mutator: Mutator } & WithTtl)
  | { type: 'map.remove'; key: string }
  | { type: 'map.get'; key: string }
  | { type: 'map.getItems'; from?: string; pageSize?: number; order?: SortOrder }
  | { type: 'map.setTtl'; ttl: number }
  | { type: 'map.setItemTtl'; key: string; ttl: number }
  | { type: 'map.removeMap' };

export type DocumentCommand =
  | ({ type: 'document.set'; data: JsonObject } & WithTtl)
  | ({ type: 'document.update'; data: JsonObject } & WithTtl)
  | ({ type: 'document.mutate'; mutator: Mutator } & WithTtl)
  | { type: 'document.setTtl'; ttl: number }
  | { type: 'document.removeDocument' };

export type StreamCommand =
  | { type: 'stream.publish'; data: JsonObject }
  | { type: 'stream.setTtl'; ttl: number }
  | { type: 'stream.removeStream' };

export function checkListCommand(command: ListCommand): SyncFailure | null {
  switch (command.type) {
    case 'list.push':
      return first(checkData(command.data), checkTtl(command.ttl));
    case 'list.set':
    case 'list.update':
      return first(checkIndex(command.index), checkData(command.data), checkTtl(command.ttl));
    case 'list.mutate':
      return first(checkIndex(command.index), checkMutator(command.mutator), checkTtl(command.ttl));
    case 'list.remove':
    case 'list.get':
      return checkIndex(command.index);
    case 'list.getItems':
      return checkListQuery(command);
    case 'list.setTtl':
      return checkRequiredTtl(command.ttl);
    case 'list.setItemTtl':
      return first(checkIndex(command.index), checkRequiredTtl(command.ttl));
    case 'list.removeList':
      return null;
  }
}

export function checkMapCommand(command: MapCommand): SyncFailure | null {
  switch (command.type) {
    case 'map.set':
    case 'map.update':
      return first(checkMapKey(command.key), checkData(command.data), checkTtl(command.ttl));
    case 'map.mutate':
      return first(checkMapKey(command.key), checkMutator(command.mutator), checkTtl(command.ttl));
    case 'map.remove':
    case 'map.get':
      return checkMapKey(command.key);
    case 'map.getItems':
      return checkMapQuery(command);
    case 'map.setTtl':
      return checkRequiredTtl(command.ttl);
    case 'map.setItemTtl':
      return first(checkMapKey(command.key), checkRequiredTtl(command.ttl));
    case 'map.removeMap':
      return null;
  }
}

export function checkDocumentCommand(command: DocumentCommand): SyncFailure | null {
  switch (command.type) {
    case 'document.set':
    case 'document.update':
      return first(checkData(command.data), checkTtl(command.ttl));
    case 'document.mutate':
      return first(checkMutator(command.mutator), checkTtl(command.ttl));
    case 'document.setTtl':
      return checkRequiredTtl(command.ttl);
    case 'document.removeDocument':
      return null;
  }
}

export function checkStreamCommand(command: StreamCommand): SyncFailure | null {
  switch (command.type) {
    case 'stream.publish':
      return checkData(command.data);
    case 'stream.setTtl':
      return checkRequiredTtl(command.ttl);
    case 'stream.removeStream':
      return null;
  }
}

/** Item metadata to send: only a ttl that was actually given (exactOptionalPropertyTypes). */
export function metadataOf(command: WithTtl): ItemMetadata | undefined {
  return command.ttl === undefined ? undefined : { ttl: command.ttl };
}
