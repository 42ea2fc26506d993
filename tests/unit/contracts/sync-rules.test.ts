import { describe, expect, it } from 'vitest';
import {
  humanMessage,
  isContainerGone,
  SyncFailure,
  syncErrors,
  toSyncFailure,
} from '../../../src/contracts/sync-errors';
import {
  checkData,
  checkIndex,
  checkListQuery,
  checkMapKey,
  checkMapQuery,
  checkMutator,
  checkOpenId,
  checkOrder,
  checkPageSize,
  checkQueryString,
  checkRequiredTtl,
  checkTtl,
  isPlainObject,
} from '../../../src/contracts/sync-rules';

describe('seed 5 validation', () => {
  it('index: a non-negative integer', () => {
    expect(checkIndex(0)).toBeNull();
    expect(checkIndex(7)).toBeNull();
    for (const bad of [-1, 1.5, Number.NaN, Infinity, '1', null, undefined]) {
      expect(checkIndex(bad)?.message).toMatch(/^index must be a non-negative integer, got /);
    }
  });

  it('ttl: a non-negative integer or absent; a document ttl must be given', () => {
    expect(checkTtl(undefined)).toBeNull();
    expect(checkTtl(0)).toBeNull();
    expect(checkTtl(-1)?.message).toBe('ttl must be a non-negative integer or absent, got -1');
    expect(checkTtl(null)?.message).toBe('ttl must be a non-negative integer or absent, got null');
    expect(checkRequiredTtl(undefined)?.message).toBe(
      'ttl must be a non-negative integer, got undefined',
    );
    expect(checkRequiredTtl(3)).toBeNull();
  });

  it('data: a plain object only', () => {
    expect(checkData({})).toBeNull();
    expect(checkData(Object.create(null))).toBeNull();
    for (const bad of [null, [], 'x', 1, new Date(0), new (class Thing {})()]) {
      expect(isPlainObject(bad)).toBe(false);
      expect(checkData(bad)?.message).toMatch(/^data must be a plain object, got /);
    }
  });

  it('mutate callback: a function', () => {
    expect(checkMutator(() => ({}))).toBeNull();
    expect(checkMutator({})?.message).toBe('the mutate callback must be a function, got a object');
  });

  it('getItems options: from, pageSize, order', () => {
    expect(checkListQuery({})).toBeNull();
    expect(checkListQuery({ from: 0, pageSize: 1, order: 'desc' })).toBeNull();
    expect(checkListQuery({ from: -1 })?.message).toBe(
      'from must be a non-negative integer or absent, got -1',
    );
    expect(checkPageSize(0)?.message).toBe('pageSize must be a positive integer or absent, got 0');
    expect(checkOrder('ASC')?.message).toBe('order must be "asc" or "desc" or absent, got "ASC"');
    expect(checkMapQuery({ from: 'k', pageSize: 10, order: 'asc' })).toBeNull();
    expect(checkMapQuery({ from: 3 })?.message).toBe('a map item key must be a string, got 3');
  });

  it('a map item key may not be empty (400 / 54209)', () => {
    expect(checkMapKey('a')).toBeNull();
    expect(checkMapKey('')).toMatchObject({
      message: 'SyncMapItem key may not be empty',
      status: 400,
      code: 54209,
    });
  });

  it('a query string must not be null (400 / 54507)', () => {
    expect(checkQueryString('name == "a"')).toBeNull();
    expect(checkQueryString(null)).toMatchObject({
      message: 'Invalid query',
      status: 400,
      code: 54507,
    });
  });

  it('an id is needed except for create_new, and the mode must be known', () => {
    expect(checkOpenId(undefined, 'create_new')).toBeNull();
    expect(checkOpenId(undefined, 'open_or_create')?.message).toBe('Cannot get entity without id');
    expect(checkOpenId('a', 'open_sesame')?.message).toMatch(/^mode must be open_or_create/);
  });
});

describe('seed 8 error catalogue', () => {
  it('has the seed messages and codes', () => {
    expect(syncErrors.listItemMissing(4)).toMatchObject({
      message: 'No item with index 4 found',
      status: 404,
      code: 54151,
    });
    expect(syncErrors.mapItemMissing()).toMatchObject({
      message: 'The specified Map Item does not exist',
      code: 54201,
    });
    expect(syncErrors.tokenRejected()).toMatchObject({
      message: 'Updated token was rejected by server',
      status: 400,
      code: 51130,
    });
    expect(syncErrors.entityWithoutId()).toMatchObject({
      message: 'Cannot get entity without id',
      status: 404,
    });
  });

  it('normalises SDK errors by status and code', () => {
    const sdk = Object.assign(new Error('Unique name already exists'), {
      status: 409,
      code: 54301,
    });
    expect(toSyncFailure(sdk)).toMatchObject({ status: 409, code: 54301, reason: 'nameTaken' });
    expect(toSyncFailure(Object.assign(new Error('x'), { status: 412 })).reason).toBe('conflict');
    expect(toSyncFailure('boom')).toMatchObject({ message: 'boom', status: 0, reason: 'network' });
    const failure = new SyncFailure('m', 1, null, 'unknown');
    expect(toSyncFailure(failure)).toBe(failure);
  });

  it('tells a missing container from a missing item', () => {
    expect(isContainerGone(syncErrors.entityMissing('map', 'm'))).toBe(true);
    expect(isContainerGone(syncErrors.listItemMissing(1))).toBe(false);
    expect(isContainerGone(syncErrors.mapItemMissing())).toBe(false);
  });

  it('has a message a person can act on for every reason', () => {
    expect(humanMessage(syncErrors.nameTaken('map', 'contacts'))).toBe(
      'A map named "contacts" already exists. Choose another name.',
    );
    expect(humanMessage(toSyncFailure(Object.assign(new Error('x'), { status: 412 })))).toMatch(
      /try again/,
    );
    expect(humanMessage(syncErrors.emptyMapKey())).toBe('SyncMapItem key may not be empty');
  });
});
