import { useNavigate, useParams } from 'react-router-dom';
import { paths } from '../../../app/paths';
import { EditScreen, itemScreen } from '../EditorFrame';
import { useGroups, usePeople } from '../live';
import { GROUP_CODEC, groupChecks, useGroupEditor } from './group';
import { GroupForm } from './GroupForm';
import './groups.css';

/**
 * /admin/group/{id}/edit through the editor machine: the save carries what the edit started from;
 * when another admin saved first the screen shows their version and offers to reload or overwrite;
 * leaving with unsaved changes asks first.
 */
export function Component() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { actor, groups } = useGroups();
  const { people } = usePeople();
  return (
    <EditScreen
      editor={useGroupEditor(actor, id, groupChecks(groups, people, id))}
      spec={itemScreen(GROUP_CODEC, 'group', 'Edit ring group')}
      done={() => void navigate(paths.adminGroup.build(id))}
      describeTheirs={(g) =>
        `Their version: ${g.name}, ${g.number}, ${g.members.length} member(s).`
      }
    >
      {(form, frame) => <GroupForm form={form} people={people} frame={frame} />}
    </EditScreen>
  );
}
