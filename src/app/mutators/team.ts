/**
 * Writes to the team's `team` document (admins only): its default country for phone numbers. A
 * patch of the field it names, checked as the whole document it makes (a {@link WriteRefused} names
 * the field, and nothing is sent).
 */
import { teamRecord } from '../../contracts/records/team';
import { selectDocumentData } from '../../machines/syncDocument.selectors';
import { patchDocument, type DocumentActor } from './core';

/** The country national numbers are read in ("GB"), or '' for none. */
export function setTeamCountry(team: DocumentActor, country: string): Promise<void> {
  return patchDocument(team, teamRecord, selectDocumentData(team.getSnapshot()), {
    defaultCountry: country,
  });
}
