import { Link } from 'react-router-dom';
import { paths } from '../../../app/paths';
import { useAnnouncements } from '../live';
import { GUIDANCE_SLOT_LABELS } from '../../../../domain/group';
import { GUIDANCE_SLOTS, type GroupGuidance } from '../../../../contracts/records/group';

/**
 * The group detail's "Announcements" block: what the group plays when open, closed, on a holiday and
 * on hold, each linked to its editor, and the way to change the choice.
 */
export function GroupAnnouncements({
  groupId,
  guidance,
}: {
  groupId: string;
  guidance: GroupGuidance;
}) {
  const { byKey: announcements, status } = useAnnouncements();
  return (
    <section aria-labelledby={`announcements-${groupId}`} data-testid="group-announcements">
      <h2 id={`announcements-${groupId}`}>Announcements</h2>
      <dl>
        {GUIDANCE_SLOTS.map((slot) => {
          const id = guidance[slot];
          const g = id === undefined ? undefined : announcements.get(id);
          return [
            <dt key={`${slot}-t`}>{GUIDANCE_SLOT_LABELS[slot]}</dt>,
            <dd key={`${slot}-d`} data-testid={`group-announcement-${slot}`}>
              {id === undefined ? (
                'None'
              ) : g ? (
                <Link to={paths.adminGuidanceEdit.build(id)}>{g.name || id}</Link>
              ) : status === 'ready' ? (
                'A deleted announcement'
              ) : (
                'Loading…'
              )}
            </dd>,
          ];
        })}
      </dl>
      <p>
        <Link to={paths.adminGroupGuidance.build(groupId)}>Choose announcements</Link>
      </p>
    </section>
  );
}
