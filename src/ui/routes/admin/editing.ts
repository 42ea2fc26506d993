/**
 * What the two editor hooks share (useMapItemEditor: an item of a map; useDocumentEditor: a
 * document): an editor machine provided with a load and a save over one stored thing, and kept
 * running for the screen's life with someone else's saves fed in as they arrive.
 *
 * A save goes through the screen's mutator, which writes only if the stored data is still what
 * the edit started from (`replaceItemIf` / `replaceDocumentIf` in src/app/mutators/core.ts). The
 * form edits normalized values, so the stored data of each revision seen is kept here: the save
 * compares against the stored data of the revision its edit started from.
 */
import { useActorRef } from '@xstate/react';
import { useEffect, useMemo, useRef } from 'react';
import { fromPromise } from 'xstate';
import type { SaveAnswer } from '../../../app/mutators/admin/written';
import type { JsonObject } from '../../../contracts/record';
import {
  editorMachine,
  type FieldErrors,
  type Revisioned,
  type SaveRequest,
} from '../../../machines/editor.machine';
import type { EditorActor } from './EditorFrame';
import type { FormCodec } from './form';

/** What is stored: the data and its revision. */
export interface Stored {
  data: JsonObject;
  revision: string;
}

/** What both editor hooks are told about the thing edited. */
export interface StoredEditorSpec<V> {
  /** How stored data reads as the record the form edits (tolerant of anything stored), and back. */
  codec: FormCodec<V>;
  /** The same rules the form shows next to each field. */
  validate: (value: V) => FieldErrors;
}

/** The values the editor machine holds for stored `data`: read as the record, written back. */
const normalized =
  <V>(codec: FormCodec<V>) =>
  (data: JsonObject): JsonObject =>
    codec.write(codec.read(data));

/** How a hook reads and writes the thing it edits, and words what goes wrong. */
export interface StoredThing<V> {
  /** What is stored now; rejects with an Error worded for the admin. */
  read: () => Promise<Stored>;
  /** The screen's mutator: writes `value` only if the stored data is still `base`. */
  save: (base: JsonObject, value: V) => Promise<SaveAnswer>;
  /** A failed save, worded (the mutators word theirs already). */
  failed: (error: unknown) => Error;
  /** "Another admin saved this group first." */
  first: string;
  /** "Another admin deleted this group while you were editing it." */
  deleted: string;
}

/** One stored thing as the editor machine reads and writes it: values as stored data. */
interface EditorSource extends StoredThing<JsonObject> {
  /** Stored data → the values the form edits (tolerant of anything stored). */
  normalize: (data: JsonObject) => JsonObject;
  /** The same rules the form shows next to each field. */
  validate: (values: JsonObject) => FieldErrors;
}

/** The last value of `value`, for callbacks that outlive a render. */
export function useLatest<T>(value: T): { readonly current: T } {
  const ref = useRef(value);
  useEffect(() => {
    ref.current = value;
  });
  return ref;
}

/**
 * The editor machine over what `source()` names now, its load held until `ready` settles (the
 * thing can be read). `seen` keeps the stored data of each revision read or pushed, which a save
 * compares against.
 */
function storedEditorLogic(
  source: () => EditorSource,
  seen: Map<string, JsonObject>,
  ready: Promise<void>,
) {
  const revisioned = (stored: Stored): Revisioned => {
    seen.set(stored.revision, stored.data);
    return { values: source().normalize(stored.data), revision: stored.revision };
  };
  const machine = editorMachine.provide({
    actors: {
      load: fromPromise(async () => {
        await ready;
        return revisioned(await source().read());
      }),
      save: fromPromise<Revisioned, SaveRequest>(async ({ input }) => {
        const { save, read, failed, first, deleted } = source();
        let answer: SaveAnswer;
        try {
          answer = await save(seen.get(input.revision) ?? input.values, input.values);
        } catch (error) {
          throw failed(error);
        }
        if (!answer.ok && answer.current === null) throw new Error(deleted);
        const now = revisioned(await read());
        if (answer.ok) return now;
        throw Object.assign(new Error(first), { status: 412 as const, current: now });
      }),
    },
  });
  return machine;
}

/**
 * Feeds the editor someone else's saves as they arrive through the container (`stored`: what the
 * container holds now): the machine follows them while nothing is unsaved, and keeps them aside
 * otherwise.
 */
function useRemoteChanges(
  editor: EditorActor,
  stored: Stored | null,
  normalize: (data: JsonObject) => JsonObject,
  seen: Map<string, JsonObject>,
): void {
  const normalizeRef = useLatest(normalize);
  const revision = stored?.revision;
  const storedRef = useLatest(stored);
  useEffect(() => {
    const current = storedRef.current;
    if (current === null) return;
    const base = editor.getSnapshot().context.base;
    if (base === null || base.revision === current.revision) return;
    seen.set(current.revision, current.data);
    editor.send({
      type: 'editor.remoteChanged',
      current: { values: normalizeRef.current(current.data), revision: current.revision },
    });
  }, [editor, revision, seen, normalizeRef, storedRef]);
}

/**
 * An editor over `target` for as long as the component lives (React's actor hook starts and stops
 * it), fed `stored` (what the container holds now) as someone else's saves arrive; null until
 * `target` can be read (its container is not open yet), the editor's load waiting until then.
 * `thing` says how to read and save it.
 */
export function useStoredEditor<T, V>(
  target: T | null,
  spec: StoredEditorSpec<V>,
  thing: (target: T) => StoredThing<V>,
  stored: Stored | null,
): EditorActor | null {
  const specRef = useLatest(spec);
  const thingRef = useLatest(thing);
  const targetRef = useLatest(target);
  const seen = useMemo(() => new Map<string, JsonObject>(), []);
  const gate = useMemo(() => {
    let open = () => {};
    const ready = new Promise<void>((resolve) => (open = resolve));
    return { ready, open };
  }, []);
  useEffect(() => {
    if (target !== null) gate.open();
  }, [target, gate]);
  const logic = useMemo(
    () =>
      storedEditorLogic(
        () => {
          const { codec, validate } = specRef.current;
          const current = targetRef.current;
          if (current === null) throw new Error('Nothing to edit yet.');
          const it = thingRef.current(current);
          return {
            ...it,
            normalize: normalized(codec),
            validate: (values) => validate(codec.read(values)),
            save: (base, values) => it.save(base, codec.read(values)),
          };
        },
        seen,
        gate.ready,
      ),
    [seen, gate, specRef, targetRef, thingRef],
  );
  const editor: EditorActor = useActorRef(logic, {
    input: { validate: (values) => specRef.current.validate(specRef.current.codec.read(values)) },
  });
  useRemoteChanges(editor, stored, normalized(spec.codec), seen);
  return target === null ? null : editor;
}
