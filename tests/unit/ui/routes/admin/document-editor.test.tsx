// @vitest-environment jsdom
/**
 * useDocumentEditor (saving through a mutator on `replaceDocumentIf`) over an SDK document fake that behaves like twilio-sync's: `mutate` runs the
 * mutator on the copy the client holds and, when the service has a newer revision, fetches it and
 * runs the mutator again (the last call counts; `null` writes nothing). What a person sees: the
 * stored values normalized, a save written, someone else's save followed while nothing is unsaved
 * and kept aside otherwise, a lost race turned into the conflict choice with nothing written and
 * the draft kept, an overwrite, field errors that send nothing, and a missing document explained.
 */
import { useSelector } from '@xstate/react';
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { EventEmitter } from 'node:events';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { replaceDocumentIf } from '../../../../../src/app/mutators/core';
import { defineRecord } from '../../../../../src/contracts/record';
import {
  selectDirty,
  selectDraft,
  selectEditorError,
  selectEditorStatus,
  selectFieldErrors,
  selectTheirs,
} from '../../../../../src/machines/editor.selectors';
import { startSyncRuntime, type SyncClientLike } from '../../../../../src/io/sync/client';
import type { JsonObject } from '../../../../../src/machines/syncPorts';
import { ActorsProvider } from '../../../../../src/ui/app/actors';
import { createAppActors } from '../../../../../src/app/page';
import type { EditorActor } from '../../../../../src/ui/routes/admin/EditorFrame';
import {
  useDocumentEditor,
  type DocumentEditorSpec,
} from '../../../../../src/ui/routes/admin/useDocumentEditor';
import { SyncProvider } from '../../../../../src/ui/sync/SyncProvider';
import { startSyncScope, type SyncScope } from '../../../../../src/app/sync-scope';
import { FakeSdkClient } from '../../../io/sync/sdkFakes';

const scopes: SyncScope[] = [];
afterEach(() => {
  cleanup();
  for (const scope of scopes.splice(0)) scope.stop();
});

const clone = (data: JsonObject): JsonObject => JSON.parse(JSON.stringify(data)) as JsonObject;

/** One document as the service stores it and as the client's SDK object holds it. */
class FakeSdkDoc extends EventEmitter {
  sid = 'ET1';
  dateExpires = null;
  dateUpdated: Date | null = new Date(5_000);
  closed = 0;
  /** The service's copy. */
  stored: { data: JsonObject; revision: number };
  /** The client's copy (what `data`, `revision` and `lastEventId` show). */
  data: JsonObject;
  revision: string;
  lastEventId: number;
  writes: JsonObject[] = [];
  mutateError: Error | null = null;
  constructor(
    public uniqueName: string,
    data: JsonObject,
  ) {
    super();
    this.stored = { data: clone(data), revision: 1 };
    this.data = clone(data);
    this.revision = '1';
    this.lastEventId = 1;
  }
  close() {
    this.closed += 1;
  }
  private take(isLocal: boolean) {
    const previousData = this.data;
    this.data = clone(this.stored.data);
    this.revision = String(this.stored.revision);
    this.lastEventId = this.stored.revision;
    this.emit('updated', { data: this.data, previousData, isLocal });
  }
  /** Another admin saves; `pushed: false` leaves this client's copy behind (the push is late). */
  saveElsewhere(data: JsonObject, { pushed }: { pushed: boolean }) {
    this.stored = { data: clone(data), revision: this.stored.revision + 1 };
    if (pushed) this.take(false);
  }
  async mutate(mutator: (current: object) => object | null) {
    await Promise.resolve();
    if (this.mutateError) throw this.mutateError;
    for (;;) {
      const next = mutator(clone(this.data));
      if (next === null) return this.data;
      if (String(this.stored.revision) !== this.revision) {
        // 412 on If-Match: the SDK fetches the newer version and asks the mutator again.
        this.take(false);
        continue;
      }
      this.writes.push(next as JsonObject);
      this.stored = { data: clone(next as JsonObject), revision: this.stored.revision + 1 };
      this.take(true);
      return this.data;
    }
  }
}

class FakeClient extends FakeSdkClient {
  docs = new Map<string, FakeSdkDoc>();
  async document(options: { id?: string; mode?: string }) {
    await Promise.resolve();
    const found = this.docs.get(options.id ?? '');
    if (!found) throw Object.assign(new Error('Document not found'), { status: 404, code: 54100 });
    return found;
  }
}

interface Holidays extends JsonObject {
  days: string[];
}

/** A small record: days, each a date. */
const daysRecord = defineRecord(
  'days',
  v.object({ days: v.array(v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/, 'not a date'))) }),
  { days: [] },
);

/** A small spec in the shape a screen passes: sorted days, each a date, saved by a mutator. */
const spec: DocumentEditorSpec<Holidays> = {
  name: 'calendar:g1',
  codec: {
    read: (data) => ({
      days: Array.isArray(data.days)
        ? data.days.filter((d): d is string => typeof d === 'string').sort()
        : [],
    }),
    write: (value) => value,
  },
  validate: ({ days }) => {
    const bad = days.findIndex((d) => !/^\d{4}-\d{2}-\d{2}$/.test(d));
    return bad < 0 ? {} : { [`days.${bad}`]: `“${days[bad]}” is not a date.` };
  },
  save: (doc, base, value) => replaceDocumentIf(doc, daysRecord, base, value),
  what: 'these holidays',
};

let editor: EditorActor | null = null;

function Probe() {
  editor = useDocumentEditor(spec);
  return editor ? <Show editor={editor} /> : <p>no editor</p>;
}

function Show({ editor: actor }: { editor: EditorActor }) {
  const status = useSelector(actor, selectEditorStatus);
  const draft = useSelector(actor, selectDraft);
  const theirs = useSelector(actor, selectTheirs);
  const dirty = useSelector(actor, selectDirty);
  const error = useSelector(actor, selectEditorError);
  const errors = useSelector(actor, selectFieldErrors);
  return (
    <dl>
      <dt>status</dt>
      <dd data-testid="status">{status}</dd>
      <dd data-testid="draft">{JSON.stringify(draft)}</dd>
      <dd data-testid="theirs">{theirs ? JSON.stringify(theirs.values) : 'none'}</dd>
      <dd data-testid="dirty">{String(dirty)}</dd>
      <dd data-testid="error">{error ?? 'none'}</dd>
      <dd data-testid="errors">{JSON.stringify(errors)}</dd>
    </dl>
  );
}

function setup(stored: JsonObject | null) {
  const client = new FakeClient();
  const doc = stored === null ? null : new FakeSdkDoc('calendar:g1', stored);
  if (doc) client.docs.set('calendar:g1', doc);
  const actors = createAppActors({
    fetch: () => Promise.reject(new Error('no server')),
    currentPath: () => '/',
  });
  const start = () =>
    Promise.resolve(
      startSyncRuntime({
        fetchCredentials: () => Promise.resolve({ token: 't1' }),
        createClient: () => client as unknown as SyncClientLike,
      }),
    );
  // As the workspace does: the scope is started outside React and handed down.
  const scope = startSyncScope({
    api: actors.api,
    toast: actors.toast,
    session: actors.session,
    start,
  });
  scopes.push(scope);
  render(
    <ActorsProvider actors={actors}>
      <SyncProvider scope={scope}>
        <Probe />
      </SyncProvider>
    </ActorsProvider>,
  );
  return { client, doc: doc! };
}

const text = (id: string) => screen.getByTestId(id).textContent;
const send = (event: Parameters<EditorActor['send']>[0]) => act(() => editor!.send(event));
const status = async (value: string) => waitFor(() => expect(text('status')).toBe(value));

describe('useDocumentEditor', () => {
  it('loads the stored values normalized and saves an edit through mutate', async () => {
    const { doc } = setup({ days: ['2027-12-26', '2027-12-25', 7] });
    await status('editing');
    expect(text('draft')).toBe('{"days":["2027-12-25","2027-12-26"]}');
    expect(text('dirty')).toBe('false');

    send({ type: 'editor.change', values: { days: ['2027-12-25', '2027-12-26', '2028-01-01'] } });
    expect(text('dirty')).toBe('true');
    send({ type: 'editor.save' });
    await waitFor(() => expect(doc.writes).toHaveLength(1));
    await status('editing');
    expect(doc.writes[0]).toEqual({ days: ['2027-12-25', '2027-12-26', '2028-01-01'] });
    expect(doc.stored.data).toEqual({ days: ['2027-12-25', '2027-12-26', '2028-01-01'] });
    expect(text('dirty')).toBe('false');
    expect(text('error')).toBe('none');
  });

  it('refuses invalid values next to the field and sends nothing', async () => {
    const { doc } = setup({ days: [] });
    await status('editing');
    send({ type: 'editor.change', values: { days: ['soon'] } });
    send({ type: 'editor.save' });
    expect(text('errors')).toBe('{"days.0":"“soon” is not a date."}');
    expect(text('status')).toBe('editing');
    await act(() => Promise.resolve());
    expect(doc.writes).toEqual([]);
    expect(text('draft')).toBe('{"days":["soon"]}');
  });

  it('follows someone else’s save while nothing is unsaved, and keeps it aside otherwise', async () => {
    const { doc } = setup({ days: ['2027-01-01'] });
    await status('editing');
    act(() => doc.saveElsewhere({ days: ['2027-01-01', '2027-04-05'] }, { pushed: true }));
    await waitFor(() => expect(text('draft')).toBe('{"days":["2027-01-01","2027-04-05"]}'));
    expect(text('theirs')).toBe('none');

    send({ type: 'editor.change', values: { days: ['2027-05-01'] } });
    act(() => doc.saveElsewhere({ days: ['2027-06-01'] }, { pushed: true }));
    await waitFor(() => expect(text('theirs')).toBe('{"days":["2027-06-01"]}'));
    expect(text('draft')).toBe('{"days":["2027-05-01"]}');
    expect(text('dirty')).toBe('true');
  });

  it('turns a lost race into the conflict choice: nothing written, the draft kept; overwrite writes mine', async () => {
    const { doc } = setup({ days: ['2027-01-01'] });
    await status('editing');
    send({ type: 'editor.change', values: { days: ['2027-01-01', '2027-12-25'] } });
    // Another admin saved a moment ago; the push has not reached this client yet.
    doc.saveElsewhere({ days: ['2027-07-04'] }, { pushed: false });
    send({ type: 'editor.save' });
    await status('conflict');
    expect(doc.writes).toEqual([]);
    expect(doc.stored.data).toEqual({ days: ['2027-07-04'] });
    expect(text('theirs')).toBe('{"days":["2027-07-04"]}');
    expect(text('draft')).toBe('{"days":["2027-01-01","2027-12-25"]}');

    send({ type: 'editor.overwrite' });
    await waitFor(() => expect(doc.writes).toHaveLength(1));
    await status('editing');
    expect(doc.stored.data).toEqual({ days: ['2027-01-01', '2027-12-25'] });
    expect(text('theirs')).toBe('none');
    expect(text('dirty')).toBe('false');
  });

  it('reload after a conflict takes their version and drops mine', async () => {
    const { doc } = setup({ days: [] });
    await status('editing');
    send({ type: 'editor.change', values: { days: ['2027-12-25'] } });
    doc.saveElsewhere({ days: ['2027-07-04'] }, { pushed: false });
    send({ type: 'editor.save' });
    await status('conflict');
    send({ type: 'editor.reload' });
    await status('editing');
    expect(text('draft')).toBe('{"days":["2027-07-04"]}');
    expect(text('dirty')).toBe('false');
    expect(doc.writes).toEqual([]);
  });

  it('says so when the document is missing, or deleted while being edited', async () => {
    setup(null);
    await status('loadFailed');
    expect(text('error')).toBe('These holidays do not exist (the group may have been deleted).');
    cleanup();

    const { doc } = setup({ days: [] });
    await status('editing');
    send({ type: 'editor.change', values: { days: ['2027-12-25'] } });
    doc.mutateError = Object.assign(new Error('Document not found'), { status: 404, code: 54100 });
    send({ type: 'editor.save' });
    await waitFor(() =>
      expect(text('error')).toBe('These holidays were deleted while you were editing them.'),
    );
    expect(text('draft')).toBe('{"days":["2027-12-25"]}');
  });
});
