import { assign, fromPromise, setup } from 'xstate';
import type { JsonObject } from './syncPorts';

/** What was loaded or saved: the values and the revision they carry. */
export interface Revisioned {
  values: JsonObject;
  revision: string;
}

export interface SaveRequest {
  values: JsonObject;
  /** The revision the edit started from; the save must fail (412) if the stored one moved on. */
  revision: string;
}

/** Field path → message a person can act on; empty when the values may be saved. */
export type FieldErrors = Record<string, string>;

/** How a refused save says that someone else saved first: it carries what they saved. */
export interface ConflictError {
  status: 412;
  current: Revisioned;
}

export function isConflict(error: unknown): error is ConflictError {
  const e = error as Partial<ConflictError> | null;
  return typeof e === 'object' && e !== null && e.status === 412 && typeof e.current === 'object';
}

export interface EditorInput {
  /** Pure check of the draft (same rules the screen shows next to each field). */
  validate: (values: JsonObject) => FieldErrors;
}

export interface EditorContext extends EditorInput {
  /** What is stored, as last loaded, saved or pushed. */
  base: Revisioned | null;
  /** What the person is typing; equal to `base.values` when nothing is unsaved. */
  draft: JsonObject | null;
  fieldErrors: FieldErrors;
  /** Someone else's save while this one had unsaved changes, or the save that beat ours. */
  theirs: Revisioned | null;
  /** The last load or save failure, in words. */
  error: string | null;
}

export type EditorEvent =
  | { type: 'editor.change'; values: JsonObject }
  | { type: 'editor.save' }
  | { type: 'editor.retry' }
  | { type: 'editor.reload' }
  | { type: 'editor.overwrite' }
  /** A pushed update of the stored values (someone else saved). */
  | { type: 'editor.remoteChanged'; current: Revisioned };

const messageOf = (error: unknown, fallback: string): string =>
  error instanceof Error && error.message !== '' ? error.message : fallback;

const same = (a: JsonObject | null | undefined, b: JsonObject | null | undefined): boolean =>
  JSON.stringify(a) === JSON.stringify(b);

/**
 * Editing one stored thing (a ring group, a schedule, a calendar…) together with other people.
 *
 * Provided: `load` (resolves {@link Revisioned}) and `save` (takes a {@link SaveRequest}, resolves the
 * saved {@link Revisioned}, rejects with a {@link ConflictError} when someone else saved first).
 * Invariants: every save carries the revision its edit started from; nothing typed is lost on a
 * refused save (the draft stays); a push from elsewhere replaces a clean draft silently and is kept
 * aside (`theirs`) while there are unsaved changes; in `conflict` the person chooses to reload theirs
 * or overwrite with their own (a save against their revision). Tag `busy` marks loading and saving;
 * `dirty` is derived (selectors), never stored.
 */
export const editorMachine = setup({
  types: {
    context: {} as EditorContext,
    events: {} as EditorEvent,
    input: {} as EditorInput,
  },
  actors: {
    load: fromPromise<Revisioned>(() => {
      throw new Error('load is provided by the screen');
    }),
    save: fromPromise<Revisioned, SaveRequest>(() => {
      throw new Error('save is provided by the screen');
    }),
  },
  guards: {
    draftValid: ({ context }) =>
      context.draft !== null && Object.keys(context.validate(context.draft)).length === 0,
    clean: ({ context }) => same(context.draft, context.base?.values),
    conflicted: ({ event }) => isConflict((event as { error?: unknown }).error),
    hasTheirs: ({ context }) => context.theirs !== null,
  },
  actions: {
    storeDraft: assign(({ event, context }) =>
      event.type === 'editor.change'
        ? {
            draft: event.values,
            // Errors shown after a save attempt follow the typing; none appear before one.
            fieldErrors:
              Object.keys(context.fieldErrors).length > 0 ? context.validate(event.values) : {},
          }
        : {},
    ),
    showFieldErrors: assign(({ context }) => ({
      fieldErrors: context.draft === null ? {} : context.validate(context.draft),
    })),
    adoptRemote: assign(({ event }) =>
      event.type === 'editor.remoteChanged'
        ? { base: event.current, draft: event.current.values, theirs: null }
        : {},
    ),
    keepRemoteAside: assign(({ event }) =>
      event.type === 'editor.remoteChanged' ? { theirs: event.current } : {},
    ),
    /** Overwrite: their save becomes what ours replaces, so ours goes against their revision. */
    acceptTheirsAsBase: assign(({ context }) =>
      context.theirs === null ? {} : { base: context.theirs, theirs: null },
    ),
    adoptTheirs: assign(({ context }) =>
      context.theirs === null
        ? {}
        : { base: context.theirs, draft: context.theirs.values, theirs: null, fieldErrors: {} },
    ),
  },
}).createMachine({
  id: 'editor',
  context: ({ input }) => ({
    validate: input.validate,
    base: null,
    draft: null,
    fieldErrors: {},
    theirs: null,
    error: null,
  }),
  initial: 'loading',
  states: {
    loading: {
      description: 'Reading what is stored, with its revision.',
      tags: ['busy'],
      invoke: {
        id: 'load',
        src: 'load',
        onDone: {
          target: 'editing',
          actions: assign(({ event }) => ({
            base: event.output,
            draft: event.output.values,
            error: null,
          })),
        },
        onError: {
          target: 'loadFailed',
          actions: assign(({ event }) => ({
            error: messageOf(event.error, 'Could not load this.'),
          })),
        },
      },
    },
    loadFailed: {
      description: 'Nothing to edit: the load failed. The person can try again.',
      on: { 'editor.retry': 'loading' },
    },
    editing: {
      description:
        'The form is open. Unsaved changes are the difference between draft and base (selector).',
      on: {
        'editor.change': { actions: 'storeDraft' },
        'editor.save': [{ guard: 'draftValid', target: 'saving' }, { actions: 'showFieldErrors' }],
        'editor.remoteChanged': [
          { guard: 'clean', actions: 'adoptRemote' },
          { actions: 'keepRemoteAside' },
        ],
        'editor.reload': { guard: 'hasTheirs', actions: 'adoptTheirs' },
      },
    },
    saving: {
      description: 'The save is on its way, carrying the revision the edit started from.',
      tags: ['busy'],
      invoke: {
        id: 'save',
        src: 'save',
        input: ({ context }) => ({
          values: context.draft ?? {},
          revision: context.base?.revision ?? '',
        }),
        onDone: {
          target: 'editing',
          actions: assign(({ event }) => ({
            base: event.output,
            draft: event.output.values,
            theirs: null,
            fieldErrors: {},
            error: null,
          })),
        },
        onError: [
          {
            guard: 'conflicted',
            target: 'conflict',
            actions: assign(({ event }) => ({
              theirs: isConflict(event.error) ? event.error.current : null,
              error: null,
            })),
          },
          {
            target: 'editing',
            actions: assign(({ event }) => ({
              error: messageOf(event.error, 'Could not save. Your changes are still here.'),
            })),
          },
        ],
      },
    },
    conflict: {
      description:
        'Someone else saved first. Their version is in `theirs`, ours in `draft`: reload theirs or overwrite.',
      on: {
        'editor.reload': { target: 'editing', actions: 'adoptTheirs' },
        'editor.overwrite': { target: 'saving', actions: 'acceptTheirsAsBase' },
        'editor.change': { target: 'editing', actions: 'storeDraft' },
        'editor.remoteChanged': { actions: 'keepRemoteAside' },
      },
    },
  },
});
