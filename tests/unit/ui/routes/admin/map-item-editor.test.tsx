// @vitest-environment jsdom
/**
 * useMapItemEditor over a `groups` map actor on in-memory objects, saving through the groups
 * mutator and the API (a stand-in of PUT /api/groups/:id that saves over the map as the server
 * saves over Sync: only if the item still holds what the edit started from). What a person sees: the
 * stored item as the form edits it, a save sent against the data the edit started from, field errors
 * that send nothing, someone else's save followed while nothing is unsaved and kept aside otherwise,
 * a lost race turned into the conflict choice with nothing written and the draft kept, an overwrite,
 * and a missing or deleted item explained.
 */
import { useSelector } from '@xstate/react';
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { updateGroup } from '../../../../../src/app/mutators/admin/groups';
import type { Group } from '../../../../../src/contracts/records/group';
import { groupToData } from '../../../../../src/domain/group';
import {
  selectDirty,
  selectDraft,
  selectEditorError,
  selectEditorStatus,
  selectFieldErrors,
  selectTheirs,
} from '../../../../../src/machines/editor.selectors';
import type { MapActor } from '../../../../../src/ui/sync/useSyncContainers';
import type { EditorActor } from '../../../../../src/ui/routes/admin/EditorFrame';
import { GROUP_CODEC } from '../../../../../src/ui/routes/admin/group/group';
import { useMapItemEditor } from '../../../../../src/ui/routes/admin/useMapItemEditor';
import type { FakeMap } from '../../../machines/syncFakes';
import { fakeSync } from './fakeSync';
import { apiAnswering, type RecordedRequest } from '../../../io/api/recorded';
import { emptyGroup } from '../../../../../src/contracts/records/group';

afterEach(cleanup);

const desk: Group = { ...emptyGroup(), name: 'Front desk', number: '200' };
let editor: EditorActor | null = null;

/** PUT /api/groups/grp-1 as the server answers it, over the fake map (Sync's stand-in here). */
function savingOver(map: () => FakeMap) {
  return (request: RecordedRequest) => {
    const { base, group } = request.body as { base: object; group: object };
    const stored = map().items.get('grp-1')?.data;
    if (!stored) return { status: 200, body: { ok: false, current: null } };
    if (JSON.stringify(stored) !== JSON.stringify(base))
      return { status: 200, body: { ok: false, current: stored } };
    map().seed('grp-1', group as Record<string, unknown>);
    return { status: 200, body: { ok: true } };
  };
}

let server = apiAnswering(null);

function Probe({ map }: { map: MapActor }) {
  editor = useMapItemEditor({
    map,
    key: 'grp-1',
    codec: GROUP_CODEC,
    validate: (g) => (g.name.trim() === '' ? { name: 'Enter a name for the group.' } : {}),
    save: (key, base, group) => updateGroup(server.api, key, base, group),
    thing: 'group',
    missing: 'This ring group does not exist (it may have been deleted).',
  });
  return editor ? <Show editor={editor} /> : <p>no editor</p>;
}

function Show({ editor: actor }: { editor: EditorActor }) {
  const draft = useSelector(actor, selectDraft);
  const theirs = useSelector(actor, selectTheirs);
  return (
    <dl>
      <dd data-testid="status">{useSelector(actor, selectEditorStatus)}</dd>
      <dd data-testid="name">{draft ? GROUP_CODEC.read(draft).name : 'none'}</dd>
      <dd data-testid="theirs">{theirs ? GROUP_CODEC.read(theirs.values).name : 'none'}</dd>
      <dd data-testid="dirty">{String(useSelector(actor, selectDirty))}</dd>
      <dd data-testid="error">{useSelector(actor, selectEditorError) ?? 'none'}</dd>
      <dd data-testid="errors">{JSON.stringify(useSelector(actor, selectFieldErrors))}</dd>
    </dl>
  );
}

async function setup(stored: Group | null) {
  const sync = fakeSync();
  const opened = await sync.openMap('groups', stored ? { 'grp-1': groupToData(stored) } : {});
  server = apiAnswering(savingOver(() => opened.map));
  render(<Probe map={opened.actor} />);
  return opened;
}

/** The saves sent to the server. */
const saves = () => server.requests.filter((r) => r.method === 'PUT');

const text = (id: string) => screen.getByTestId(id).textContent;
const send = (event: Parameters<EditorActor['send']>[0]) => act(() => editor!.send(event));
const status = (value: string) => waitFor(() => expect(text('status')).toBe(value));
const rename = (name: string) =>
  send({ type: 'editor.change', values: GROUP_CODEC.write({ ...desk, name }) });
/** Another admin saves; `pushed` says whether this page has heard of it yet. */
function saveElsewhere(
  { map, events }: { map: FakeMap; events: { push(e: object): void } },
  name: string,
  pushed: boolean,
) {
  const item = map.seed('grp-1', groupToData({ ...desk, name }));
  if (pushed) act(() => events.push({ type: 'map.itemUpdated', item, isLocal: false }));
}

describe('useMapItemEditor', () => {
  it('loads the stored item as the form edits it and saves an edit through the mutator', async () => {
    const { map } = await setup(desk);
    await status('editing');
    expect(text('name')).toBe('Front desk');
    rename('Reception');
    expect(text('dirty')).toBe('true');
    send({ type: 'editor.save' });
    await status('editing');
    await waitFor(() => expect(text('dirty')).toBe('false'));
    expect(saves()).toEqual([
      {
        method: 'PUT',
        url: '/api/groups/grp-1',
        body: {
          base: groupToData(desk),
          group: groupToData({ ...desk, name: 'Reception' }),
        },
      },
    ]);
    expect(map.items.get('grp-1')?.data).toEqual(groupToData({ ...desk, name: 'Reception' }));
    expect(text('error')).toBe('none');
  });

  it('keeps what is typed as typed (a space before the next word), and saves it trimmed', async () => {
    const { map } = await setup(desk);
    await status('editing');
    rename('Front ');
    expect(text('name')).toBe('Front ');
    rename('Front office ');
    send({ type: 'editor.save' });
    await waitFor(() => expect(text('dirty')).toBe('false'));
    expect(map.items.get('grp-1')?.data).toMatchObject({ name: 'Front office' });
    expect(text('name')).toBe('Front office');
  });

  it('refuses invalid values next to the field and sends nothing', async () => {
    await setup(desk);
    await status('editing');
    rename(' ');
    send({ type: 'editor.save' });
    expect(text('errors')).toBe('{"name":"Enter a name for the group."}');
    await act(() => Promise.resolve());
    expect(saves()).toEqual([]);
  });

  it('follows someone else’s save while nothing is unsaved, and keeps it aside otherwise', async () => {
    const opened = await setup(desk);
    await status('editing');
    saveElsewhere(opened, 'Front office', true);
    await waitFor(() => expect(text('name')).toBe('Front office'));
    expect(text('theirs')).toBe('none');
    rename('Reception');
    saveElsewhere(opened, 'Lobby', true);
    await waitFor(() => expect(text('theirs')).toBe('Lobby'));
    expect(text('name')).toBe('Reception');
    expect(saves()).toEqual([]);
  });

  it('turns a lost race into the conflict choice: theirs kept, the draft kept; overwrite writes mine', async () => {
    const opened = await setup(desk);
    await status('editing');
    rename('Reception');
    saveElsewhere(opened, 'Front office', false);
    send({ type: 'editor.save' });
    await status('conflict');
    expect(text('theirs')).toBe('Front office');
    expect(text('name')).toBe('Reception');
    expect(opened.map.items.get('grp-1')?.data).toMatchObject({ name: 'Front office' });
    send({ type: 'editor.overwrite' });
    await waitFor(() =>
      expect(opened.map.items.get('grp-1')?.data).toMatchObject({ name: 'Reception' }),
    );
    await status('editing');
    expect(text('theirs')).toBe('none');
  });

  it('says so when the item is missing, or deleted while being edited', async () => {
    await setup(null);
    await status('loadFailed');
    expect(text('error')).toBe('This ring group does not exist (it may have been deleted).');
    cleanup();

    const { map } = await setup(desk);
    await status('editing');
    rename('Reception');
    map.items.delete('grp-1');
    send({ type: 'editor.save' });
    await waitFor(() =>
      expect(text('error')).toBe('Another admin deleted this group while you were editing it.'),
    );
    expect(text('name')).toBe('Reception');
  });
});
