import { assign, fromPromise, setup } from 'xstate';
import { MAX_REOPEN_ATTEMPTS } from '../contracts/sync-constants';
import { SyncFailure, syncErrors, toSyncFailure } from '../contracts/sync-errors';
import type { Opened, OpenRequest } from './syncPorts';
import { checkOpenId, checkTtl } from '../contracts/sync-rules';

export interface OpenEntityInput {
  request: OpenRequest;
}

export type OpenEntityOutput = { ok: true; opened: Opened } | { ok: false; error: SyncFailure };

interface OpenEntityContext {
  request: OpenRequest;
  /** How many times a lost create race sent us back to opening. */
  reopens: number;
  opened: Opened | null;
  error: SyncFailure | null;
}

const notProvided = (name: string) =>
  fromPromise<Opened, OpenRequest>(() =>
    Promise.reject(new Error(`openEntity: the "${name}" actor was not provided`)),
  );

const statusOf = (error: unknown): number => toSyncFailure(error).status;

/**
 * Opens a synced container in one of the three modes of seed section 4, step by step as twilio-sync
 * does inside `client.list({ id, mode })`:
 * - open_or_create: open; a 404 creates; a 409 from that create (a concurrent creator won) re-opens.
 * - open_existing: open; a 404 fails saying the entity does not exist.
 * - create_new: create; a 409 fails saying the name is taken.
 *
 * Provided actors: `open` (read an existing entity by SID or unique name) and `create`. Both take
 * the {@link OpenRequest} and resolve to an {@link Opened} handle. The machine always ends in
 * `opened` or `failed`; its output says which, with the handle or a {@link SyncFailure}.
 */
export const openEntityMachine = setup({
  types: {
    input: {} as OpenEntityInput,
    context: {} as OpenEntityContext,
    output: {} as OpenEntityOutput,
  },
  actors: { open: notProvided('open'), create: notProvided('create') },
  guards: {
    requestInvalid: ({ context }) =>
      checkOpenId(context.request.id, context.request.mode) !== null ||
      checkTtl(context.request.ttl) !== null,
    createsFirst: ({ context }) => context.request.mode === 'create_new',
    missingMayCreate: ({ context }, params: { error: unknown }) =>
      context.request.mode === 'open_or_create' && statusOf(params.error) === 404,
    mayReopen: ({ context }) =>
      context.request.mode === 'open_or_create' && context.reopens < MAX_REOPEN_ATTEMPTS,
    isOpenOrCreate: ({ context }) => context.request.mode === 'open_or_create',
    notFound: (_, params: { error: unknown }) => statusOf(params.error) === 404,
    conflict: (_, params: { error: unknown }) => statusOf(params.error) === 409,
  },
  actions: {
    rejectRequest: assign({
      error: ({ context }) =>
        checkOpenId(context.request.id, context.request.mode) ?? checkTtl(context.request.ttl),
    }),
    countReopen: assign({ reopens: ({ context }) => context.reopens + 1 }),
    failWith: assign({ error: (_, params: { error: unknown }) => toSyncFailure(params.error) }),
    failMissing: assign({
      error: ({ context }) =>
        syncErrors.entityMissing(context.request.kind, context.request.id ?? ''),
    }),
    failNameTaken: assign({
      error: ({ context }) => syncErrors.nameTaken(context.request.kind, context.request.id ?? ''),
    }),
    failTooManyReopens: assign({
      error: ({ context }) =>
        syncErrors.tooManyReopens(context.request.kind, context.request.id ?? ''),
    }),
  },
}).createMachine({
  id: 'openEntity',
  context: ({ input }) => ({ request: input.request, reopens: 0, opened: null, error: null }),
  initial: 'checking',
  output: ({ context }) =>
    context.opened
      ? { ok: true, opened: context.opened }
      : {
          ok: false,
          error: context.error ?? new SyncFailure('Opening stopped', 0, null, 'unknown'),
        },
  states: {
    checking: {
      description: 'Rejects a request without id (unless create_new) or with a bad ttl.',
      always: [
        { guard: 'requestInvalid', target: 'failed', actions: 'rejectRequest' },
        { guard: 'createsFirst', target: 'creating' },
        { target: 'opening' },
      ],
    },
    opening: {
      description: 'Reads the entity by SID or unique name (the SDK opens with open_existing).',
      invoke: {
        id: 'open',
        src: 'open',
        input: ({ context }) => context.request,
        onDone: {
          target: 'opened',
          actions: assign({ opened: ({ event }) => event.output }),
        },
        onError: [
          {
            guard: { type: 'missingMayCreate', params: ({ event }) => ({ error: event.error }) },
            target: 'creating',
          },
          {
            guard: { type: 'notFound', params: ({ event }) => ({ error: event.error }) },
            target: 'failed',
            actions: 'failMissing',
          },
          {
            target: 'failed',
            actions: { type: 'failWith', params: ({ event }) => ({ error: event.error }) },
          },
        ],
      },
    },
    creating: {
      description: 'Creates the entity (the SDK creates with create_new).',
      invoke: {
        id: 'create',
        src: 'create',
        input: ({ context }) => context.request,
        onDone: {
          target: 'opened',
          actions: assign({ opened: ({ event }) => event.output }),
        },
        onError: [
          {
            guard: { type: 'conflict', params: ({ event }) => ({ error: event.error }) },
            target: 'reopening',
          },
          {
            target: 'failed',
            actions: { type: 'failWith', params: ({ event }) => ({ error: event.error }) },
          },
        ],
      },
    },
    reopening: {
      description:
        'A create answered 409: under open_or_create a concurrent creator won, so open theirs; under create_new the name is taken.',
      always: [
        { guard: 'mayReopen', target: 'opening', actions: 'countReopen' },
        { guard: 'isOpenOrCreate', target: 'failed', actions: 'failTooManyReopens' },
        { target: 'failed', actions: 'failNameTaken' },
      ],
    },
    opened: { type: 'final' },
    failed: { type: 'final' },
  },
});
