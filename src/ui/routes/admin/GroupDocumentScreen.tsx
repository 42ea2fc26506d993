import type { ReactNode } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import type { ObjectFamily } from '../../../contracts/objects';
import { paths } from '../../app/paths';
import { EditScreen, type EditSpec } from './EditorFrame';
import type { FormCodec, FormFrame, FormState } from './form';
import { useGroups } from './live';
import { useDocumentEditor, type DocumentEditorSpec } from './useDocumentEditor';

/**
 * The edit screen of a ring group's `kind` document (`schedule`, its test id) holding its `things`
 * ("business hours": "Edit business hours", as the group's button says, "these business hours",
 * "The business hours were saved.").
 */
export function documentScreen<V>(codec: FormCodec<V>, kind: string, things: string): EditSpec<V> {
  return {
    codec,
    title: () => `Edit ${things}`,
    what: `these ${things}`,
    loading: `Loading these ${things}…`,
    saved: `The ${things} were saved.`,
    testId: kind,
  };
}

/**
 * The edit screen of one of a ring group's documents (`/admin/{schedule|calendar}/{id}/edit`): the
 * group it belongs to, the document's editor, and back to the group when saved or cancelled.
 */
export function GroupDocumentScreen<V>({
  family,
  spec,
  store: { validate, save },
  intro,
  describeTheirs,
  children,
}: {
  /** The group's documents of this kind (SCHEDULES, CALENDARS). */
  family: ObjectFamily<'document'>;
  spec: EditSpec<V>;
  /** The form's checks and the mutator. */
  store: Pick<DocumentEditorSpec<V>, 'validate' | 'save'>;
  /** What the screen says first, given the group's name. */
  intro: (group: ReactNode) => ReactNode;
  describeTheirs: (theirs: V) => ReactNode;
  children: (form: FormState<V>, frame: FormFrame, groupId: string) => ReactNode;
}) {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { groups } = useGroups();
  const { codec, what } = spec;
  const editor = useDocumentEditor({ name: family.name(id), codec, validate, save, what });
  const group = groups.get(id);
  return (
    <EditScreen
      editor={editor}
      spec={spec}
      intro={
        <p className={`${spec.testId}__for`}>
          {intro(group ? <strong>{group.name}</strong> : 'this ring group')}
        </p>
      }
      done={() => void navigate(paths.adminGroup.build(id))}
      describeTheirs={describeTheirs}
    >
      {(form, frame) => children(form, frame, id)}
    </EditScreen>
  );
}
