import { useSelector } from '@xstate/react';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useBlocker, useNavigate, useParams } from 'react-router-dom';
import { createActor, fromPromise } from 'xstate';
import {
  editorMachine,
  type Revisioned,
  type SaveRequest,
} from '../../../../machines/editor.machine';
import {
  selectDirty,
  selectDraft,
  selectEditorError,
  selectEditorStatus,
  selectFieldErrors,
  selectTheirs,
} from '../../../../machines/editor.selectors';
import { ask } from '../../../../machines/syncCommand';
import type { MapCommandResults } from '../../../../machines/syncMap.machine';
import { humanMessage, toSyncFailure } from '../../../../sync/errors';
import type { JsonObject } from '../../../../sync/ports';
import { useToastActor } from '../../../app/actors';
import { paths } from '../../../app/paths';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { Screen } from '../../../components/Screen';
import type { MapActor } from '../../../sync/containers';
import { updateGroup } from './commands';
import {
  extensionOwners,
  groupFromData,
  groupToData,
  validateGroup,
  type Group,
  type GroupErrors,
} from './group';
import { GroupForm, type Person } from './GroupForm';
import './groups.css';
import { useGroups, usePeople } from './useGroups';

async function readGroup(groups: MapActor, id: string): Promise<Revisioned> {
  try {
    const item = await ask<typeof groups.logic, MapCommandResults['map.get']>(
      groups,
      { type: 'map.get', key: id },
      'map',
    );
    return { values: groupToData(groupFromData(item.data)), revision: item.revision };
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
          const result = await updateGroup(groupsActor, id, base, groupFromData(input.values));
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
            groupFromData(values),
            others(),
            people(),
            extensionOwners(peopleRef.current),
          ) as Record<string, string>,
      },
    });
    return actor;
  }, [groupsActor, id, opened]);

  // Someone else's save arrives through the map: the editor follows it, or keeps it aside while dirty.
  const stored = items.find((i) => i.key === id);
  const storedRevision = stored?.revision;
  const storedRef = useRef(stored);
  useEffect(() => {
    storedRef.current = stored;
  });
  useEffect(() => {
    const item = storedRef.current;
    if (!editor || !item || storedRevision === undefined) return;
    const base = editor.getSnapshot().context.base;
    if (base === null || base.revision === storedRevision) return;
    editor.send({
      type: 'editor.remoteChanged',
      current: { values: groupToData(groupFromData(item.data)), revision: storedRevision },
    });
  }, [editor, storedRevision]);

  useEffect(() => {
    if (!editor) return;
    editor.start();
    return () => {
      editor.stop();
    };
  }, [editor]);

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

type EditorActor = ReturnType<typeof createActor<typeof editorMachine>>;

/** The form over a started editor actor (a component of its own, so its hooks keep their state). */
function Editor({
  editor: e,
  people: p,
  onDone,
}: {
  editor: EditorActor;
  people: readonly Person[];
  onDone: () => void;
}) {
  const toast = useToastActor();
  const status = useSelector(e, selectEditorStatus);
  const draft = useSelector(e, selectDraft);
  const fieldErrors = useSelector(e, selectFieldErrors) as GroupErrors;
  const error = useSelector(e, selectEditorError);
  const theirs = useSelector(e, selectTheirs);
  const dirty = useSelector(e, selectDirty);
  const blocker = useBlocker(dirty && status !== 'saving');
  const wasSaving = useRef(false);
  useEffect(() => {
    // A save that went through (back to editing, nothing unsaved) returns to the group.
    if (wasSaving.current && status === 'editing' && !dirty && error === null) {
      toast.send({ type: 'toast.show', message: 'The group was saved.', toastType: 'success' });
      onDone();
    }
    wasSaving.current = status === 'saving';
  }, [status, dirty, error, onDone, toast]);
  useEffect(() => {
    if (!dirty) return;
    const warn = (ev: BeforeUnloadEvent) => ev.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const group: Group | null = draft ? groupFromData(draft) : null;
  return (
    <Screen title={group ? `Edit ${group.name || 'ring group'}` : 'Edit ring group'}>
      {status === 'loading' && (
        <p className="screen-status" role="status">
          Loading the group…
        </p>
      )}
      {status === 'loadFailed' && (
        <div className="form-error" role="alert">
          {error}{' '}
          <button type="button" className="button" onClick={() => e.send({ type: 'editor.retry' })}>
            Try again
          </button>
        </div>
      )}
      {theirs && (
        <div className="form-error" role="alert" data-testid="group-conflict">
          <p>
            {status === 'conflict'
              ? 'Another admin saved this group first.'
              : 'Another admin just saved this group.'}{' '}
            Their version: {groupFromData(theirs.values).name},{' '}
            {groupFromData(theirs.values).number}, {groupFromData(theirs.values).members.length}{' '}
            member(s).
          </p>
          <button
            type="button"
            className="button"
            onClick={() => e.send({ type: 'editor.reload' })}
          >
            Use their version
          </button>{' '}
          {status === 'conflict' && (
            <button
              type="button"
              className="button"
              onClick={() => e.send({ type: 'editor.overwrite' })}
            >
              Keep mine and overwrite
            </button>
          )}
        </div>
      )}
      {group && (
        <GroupForm
          value={group}
          errors={fieldErrors}
          people={p}
          busy={status === 'saving'}
          submitLabel="Save"
          formError={status === 'editing' ? error : null}
          onChange={(g) => e.send({ type: 'editor.change', values: groupToData(g) })}
          onSubmit={() => {
            e.send({ type: 'editor.save' });
            return e.getSnapshot().context.fieldErrors;
          }}
          onCancel={onDone}
        />
      )}
      {blocker.state === 'blocked' && (
        <ConfirmDialog
          title="Leave without saving?"
          cancelLabel="Stay"
          action={{
            label: 'Leave',
            busyLabel: 'Leaving…',
            run: () => {
              blocker.proceed();
              return Promise.resolve();
            },
          }}
          onClose={() => {
            if (blocker.state === 'blocked') blocker.reset();
          }}
        >
          Your changes to this group are not saved.
        </ConfirmDialog>
      )}
    </Screen>
  );
}
