import { useSelector } from '@xstate/react';
import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
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
import { EditorFrame, type EditorActor, type EditorFormProps } from '../EditorFrame';
import { useRunningEditor } from '../useRunningEditor';
import type { Guidance } from '../guidance/guidance';
import { useGuidanceMap } from '../guidance/useGuidance';
import { updateGroup } from './commands';
import {
  GUIDANCE_SLOT_LABELS,
  groupToData,
  validateGroupGuidance,
  type GroupGuidanceErrors,
} from '../../../../domain/group';
import './groups.css';
import { useGroups } from './useGroups';
import { GUIDANCE_SLOTS, type GuidanceSlot } from '../../../../contracts/records/group';
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
          validateGroupGuidance(
            groupRecord.read(values).guidance,
            new Set(announcementsRef.current.keys()),
          ),
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

function Editor({
  editor,
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
  const draft = useSelector(editor, selectDraft);
  const name = draft ? groupRecord.read(draft).name : null;
  const options = [...announcements.entries()].sort(([, a], [, b]) => a.name.localeCompare(b.name));
  const nameOf = (gid: string | undefined) =>
    gid === undefined ? 'none' : (announcements.get(gid)?.name ?? 'a deleted announcement');
  const slotId = (slot: GuidanceSlot) => `${uid}-${slot}`;

  function submit(event: FormEvent, form: EditorFormProps) {
    event.preventDefault();
    if (form.busy) return;
    const found = form.save() as GroupGuidanceErrors;
    const first = GUIDANCE_SLOTS.find((s) => found[s] !== undefined);
    if (first) document.getElementById(slotId(first))?.focus();
  }

  return (
    <Screen title={name !== null ? `Guidance of ${name || 'the group'}` : 'Group guidance'}>
      <EditorFrame
        editor={editor}
        what="this group"
        leaveWhat="this group’s announcements"
        testId="group-guidance"
        describeTheirs={(values) =>
          `Their choice: ${GUIDANCE_SLOTS.map(
            (s) =>
              `${GUIDANCE_SLOT_LABELS[s].toLowerCase()}: ${nameOf(groupRecord.read(values).guidance[s])}`,
          ).join('; ')}.`
        }
        savedMessage="The announcements were saved."
        onSaved={onDone}
      >
        {(form) => {
          const group = groupRecord.read(form.draft);
          const errors = form.errors as GroupGuidanceErrors;
          return (
            <form
              className="group-form"
              noValidate
              onSubmit={(event) => submit(event, form)}
              aria-busy={form.busy}
            >
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
                      aria-invalid={errors[slot] ? true : undefined}
                      aria-describedby={errors[slot] ? `${slotId(slot)}-error` : undefined}
                      onChange={(ev) => {
                        const next = ev.currentTarget.value;
                        const guidance = { ...group.guidance };
                        if (next === '') delete guidance[slot];
                        else guidance[slot] = next;
                        form.change(groupToData({ ...group, guidance }));
                      }}
                    >
                      <option value="">
                        {announcementsLoading ? 'Loading…' : 'No announcement'}
                      </option>
                      {chosen !== '' && !announcements.has(chosen) && !announcementsLoading && (
                        <option value={chosen}>(deleted announcement)</option>
                      )}
                      {options.map(([gid, g]) => (
                        <option key={gid} value={gid}>
                          {g.name || gid}
                        </option>
                      ))}
                    </select>
                    {errors[slot] !== undefined && (
                      <p id={`${slotId(slot)}-error`} className="field__error">
                        {errors[slot]}
                      </p>
                    )}
                  </div>
                );
              })}
              {form.formError !== null && (
                <p className="form-error" role="alert">
                  {form.formError}
                </p>
              )}
              <div className="group-form__actions">
                <button type="submit" className="button button--primary" disabled={form.busy}>
                  {form.busy ? 'Saving…' : 'Save'}
                </button>
                <button type="button" className="button" onClick={onDone} disabled={form.busy}>
                  Cancel
                </button>
              </div>
            </form>
          );
        }}
      </EditorFrame>
    </Screen>
  );
}
