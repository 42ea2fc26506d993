import { useSelector } from '@xstate/react';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { createActor, fromPromise } from 'xstate';
import {
  editorMachine,
  type Revisioned,
  type SaveRequest,
} from '../../../../machines/editor.machine';
import { selectDraft } from '../../../../machines/editor.selectors';
import { ask } from '../../../../machines/syncCommand';
import type { MapCommandResults } from '../../../../machines/syncMap.machine';
import { humanMessage, toSyncFailure } from '../../../../contracts/sync-errors';
import type { JsonObject } from '../../../../machines/syncPorts';
import { paths } from '../../../app/paths';
import { Screen } from '../../../components/Screen';
import type { MapActor } from '../../../sync/containers';
import { EditorFrame, type EditorActor } from '../EditorFrame';
import { useRunningEditor } from '../useRunningEditor';
import { updateGroup } from './commands';
import { extensionOwners, groupToData, validateGroup } from '../../../../domain/group';
import { GroupForm, type Person } from './GroupForm';
import './groups.css';
import { useGroups, usePeople } from './useGroups';
import { groupRecord } from '../../../../contracts/records/group';

async function readGroup(groups: MapActor, id: string): Promise<Revisioned> {
  try {
    const item = await ask<typeof groups.logic, MapCommandResults['map.get']>(
      groups,
      { type: 'map.get', key: id },
      'map',
    );
    return { values: groupToData(groupRecord.read(item.data)), revision: item.revision };
  } catch (error) {
    const failure = toSyncFailure(error);
    throw new Error(
      failure.status === 404
        ? 'This ring group does not exist (it may have been deleted).'
        : `The group could not be loaded: ${humanMessage(failure)}`,
    );
  }
}

/**
 * /admin/group/{id}/edit through the editor machine: the save carries what the edit started from;
 * when another admin saved first the screen shows their version and offers to reload or overwrite;
 * leaving with unsaved changes asks first.
 */
export function Component() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { actor: groupsActor, groups, status: groupsStatus, items } = useGroups();
  // The editor reads through the map's machine, so it starts once the map is open (and stays).
  const [opened, setOpened] = useState(false);
  if (!opened && groupsStatus === 'ready') setOpened(true);
  const { people } = usePeople();
  const groupsRef = useRef(groups);
  useEffect(() => {
    groupsRef.current = groups;
  });
  const peopleRef = useRef(people);
  useEffect(() => {
    peopleRef.current = people;
  });

  const editor = useMemo(() => {
    if (!groupsActor || !opened) return null;
    const others = () => new Map([...groupsRef.current].filter(([key]) => key !== id));
    const people = () => new Set(peopleRef.current.map((p) => p.identity));
    let actor: ReturnType<typeof createActor<typeof editorMachine>> | null = null;
    const machine = editorMachine.provide({
      actors: {
        load: fromPromise(() => readGroup(groupsActor, id)),
        save: fromPromise<Revisioned, SaveRequest>(async ({ input }) => {
          const base = actor?.getSnapshot().context.base?.values ?? {};
          const result = await updateGroup(groupsActor, id, base, groupRecord.read(input.values));
          if (result.ok) return readGroup(groupsActor, id);
          if (result.current === null) {
            throw new Error('Another admin deleted this group while you were editing it.');
          }
          const current = await readGroup(groupsActor, id);
          throw Object.assign(new Error('Another admin saved this group first.'), {
            status: 412 as const,
            current,
          });
        }),
      },
    });
    actor = createActor(machine, {
      input: {
        validate: (values: JsonObject) =>
          validateGroup(
            groupRecord.read(values),
            others(),
            people(),
            extensionOwners(peopleRef.current),
          ) as Record<string, string>,
      },
    });
    return actor;
  }, [groupsActor, id, opened]);

  // Someone else's save arrives through the map.
  const stored = items.find((i) => i.key === id);
  useRunningEditor(editor, stored?.revision, () =>
    stored ? groupToData(groupRecord.read(stored.data)) : null,
  );

  return editor ? (
    <Editor
      editor={editor}
      people={people}
      onDone={() => void navigate(paths.adminGroup.build(id))}
    />
  ) : (
    <Screen title="Edit ring group">
      <p className="screen-status" role="status">
        Loading the group…
      </p>
    </Screen>
  );
}

/** The form over a started editor actor (a component of its own, so its hooks keep their state). */
function Editor({
  editor,
  people,
  onDone,
}: {
  editor: EditorActor;
  people: readonly Person[];
  onDone: () => void;
}) {
  const draft = useSelector(editor, selectDraft);
  const name = draft ? groupRecord.read(draft).name : '';
  return (
    <Screen title={name ? `Edit ${name}` : 'Edit ring group'}>
      <EditorFrame
        editor={editor}
        what="this group"
        testId="group"
        describeTheirs={(values) => {
          const g = groupRecord.read(values);
          return `Their version: ${g.name}, ${g.number}, ${g.members.length} member(s).`;
        }}
        savedMessage="The group was saved."
        onSaved={onDone}
      >
        {(form) => (
          <GroupForm
            value={groupRecord.read(form.draft)}
            errors={form.errors}
            people={people}
            busy={form.busy}
            submitLabel="Save"
            formError={form.formError}
            onChange={(g) => form.change(groupToData(g))}
            onSubmit={form.save}
            onCancel={onDone}
          />
        )}
      </EditorFrame>
    </Screen>
  );
}
