import { useSelector } from '@xstate/react';
import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useBlocker, useNavigate, useParams } from 'react-router-dom';
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
import type { Guidance } from '../guidance/guidance';
import { useGuidanceMap } from '../guidance/useGuidance';
import { updateGroup } from './commands';
import {
  GUIDANCE_SLOT_LABELS,
  GUIDANCE_SLOTS,
  groupFromData,
  groupToData,
  validateGroupGuidance,
  type GroupGuidanceErrors,
  type GuidanceSlot,
} from './group';
import './groups.css';
import { useGroups } from './useGroups';

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
 * /admin/group/{id}/guidance: which announcement the group plays when open, closed, on a holiday and
 * to a caller on hold, stored in its `groups` item (`guidance`). Edited through the editor machine
 * like the group itself: a save carries its revision, a conflict offers reload or overwrite.
 */
export function Component() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { actor: groupsActor, status: groupsStatus, items } = useGroups();
  const { announcements, status: guidanceStatus } = useGuidanceMap();
  const [opened, setOpened] = useState(false);
  if (!opened && groupsStatus === 'ready') setOpened(true);
  const announcementsRef = useRef(announcements);
  useEffect(() => {
    announcementsRef.current = announcements;
  });

  const editor = useMemo(() => {
    if (!groupsActor || !opened) return null;
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
          validateGroupGuidance(
            groupFromData(values).guidance,
            new Set(announcementsRef.current.keys()),
          ),
      },
    });
    return actor;
  }, [groupsActor, id, opened]);

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
      announcements={announcements}
      announcementsLoading={guidanceStatus !== 'ready'}
      onDone={() => void navigate(paths.adminGroup.build(id))}
    />
  ) : (
    <Screen title="Group guidance">
      <p className="screen-status" role="status">
        Loading the group…
      </p>
    </Screen>
  );
}

type EditorActor = ReturnType<typeof createActor<typeof editorMachine>>;

function Editor({
  editor: e,
  announcements,
  announcementsLoading,
  onDone,
}: {
  editor: EditorActor;
  announcements: ReadonlyMap<string, Guidance>;
  announcementsLoading: boolean;
  onDone: () => void;
}) {
  const uid = useId();
  const toast = useToastActor();
  const status = useSelector(e, selectEditorStatus);
  const draft = useSelector(e, selectDraft);
  const fieldErrors = useSelector(e, selectFieldErrors) as GroupGuidanceErrors;
  const error = useSelector(e, selectEditorError);
  const theirs = useSelector(e, selectTheirs);
  const dirty = useSelector(e, selectDirty);
  const blocker = useBlocker(dirty && status !== 'saving');
  const wasSaving = useRef(false);
  useEffect(() => {
    if (wasSaving.current && status === 'editing' && !dirty && error === null) {
      toast.send({
        type: 'toast.show',
        message: 'The announcements were saved.',
        toastType: 'success',
      });
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

  const group = draft ? groupFromData(draft) : null;
  const options = [...announcements.entries()].sort(([, a], [, b]) => a.name.localeCompare(b.name));
  const nameOf = (gid: string | undefined) =>
    gid === undefined ? 'none' : (announcements.get(gid)?.name ?? 'a deleted announcement');
  const slotId = (slot: GuidanceSlot) => `${uid}-${slot}`;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (status === 'saving') return;
    e.send({ type: 'editor.save' });
    const found = e.getSnapshot().context.fieldErrors as GroupGuidanceErrors;
    const first = GUIDANCE_SLOTS.find((s) => found[s] !== undefined);
    if (first) document.getElementById(slotId(first))?.focus();
  }

  return (
    <Screen title={group ? `Guidance of ${group.name || 'the group'}` : 'Group guidance'}>
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
        <div className="form-error" role="alert" data-testid="group-guidance-conflict">
          <p>
            {status === 'conflict'
              ? 'Another admin saved this group first.'
              : 'Another admin just saved this group.'}{' '}
            Their choice:{' '}
            {GUIDANCE_SLOTS.map(
              (s) =>
                `${GUIDANCE_SLOT_LABELS[s].toLowerCase()}: ${nameOf(groupFromData(theirs.values).guidance[s])}`,
            ).join('; ')}
            .
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
        <form className="group-form" noValidate onSubmit={submit} aria-busy={status === 'saving'}>
          {!announcementsLoading && options.length === 0 && (
            <p className="group-form__hint">
              There are no announcements yet.{' '}
              <Link to={paths.adminGuidanceCreate.build()}>Create one</Link> first.
            </p>
          )}
          {GUIDANCE_SLOTS.map((slot) => {
            const chosen = group.guidance[slot] ?? '';
            return (
              <div className="field" key={slot}>
                <label htmlFor={slotId(slot)}>{GUIDANCE_SLOT_LABELS[slot]}</label>
                <select
                  id={slotId(slot)}
                  value={chosen}
                  disabled={announcementsLoading}
                  aria-invalid={fieldErrors[slot] ? true : undefined}
                  aria-describedby={fieldErrors[slot] ? `${slotId(slot)}-error` : undefined}
                  onChange={(ev) => {
                    const next = ev.currentTarget.value;
                    const guidance = { ...group.guidance };
                    if (next === '') delete guidance[slot];
                    else guidance[slot] = next;
                    e.send({ type: 'editor.change', values: groupToData({ ...group, guidance }) });
                  }}
                >
                  <option value="">{announcementsLoading ? 'Loading…' : 'No announcement'}</option>
                  {chosen !== '' && !announcements.has(chosen) && !announcementsLoading && (
                    <option value={chosen}>(deleted announcement)</option>
                  )}
                  {options.map(([gid, g]) => (
                    <option key={gid} value={gid}>
                      {g.name || gid}
                    </option>
                  ))}
                </select>
                {fieldErrors[slot] !== undefined && (
                  <p id={`${slotId(slot)}-error`} className="field__error">
                    {fieldErrors[slot]}
                  </p>
                )}
              </div>
            );
          })}
          {status === 'editing' && error !== null && (
            <p className="form-error" role="alert">
              {error}
            </p>
          )}
          <div className="group-form__actions">
            <button type="submit" className="button button--primary" disabled={status === 'saving'}>
              {status === 'saving' ? 'Saving…' : 'Save'}
            </button>
            <button
              type="button"
              className="button"
              onClick={onDone}
              disabled={status === 'saving'}
            >
              Cancel
            </button>
          </div>
        </form>
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
          Your changes to this group’s announcements are not saved.
        </ConfirmDialog>
      )}
    </Screen>
  );
}
