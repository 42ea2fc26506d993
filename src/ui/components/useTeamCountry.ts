/** The country phone numbers are read and shown in, for the screens (src/app/team.ts). */
import { useMemo } from 'react';
import { TEAM } from '../../contracts/objects';
import { effectiveCountry, TEAM_DOCUMENT } from '../../app/team';
import { isCountry, type CountryCode } from '../../domain/phone-number';
import { selectDocumentData } from '../../machines/syncDocument.selectors';
import { useContainerSelector, useSyncDocument } from '../sync/useSyncContainers';

const browserLanguages = (): readonly string[] =>
  typeof navigator === 'undefined' ? [] : (navigator.languages ?? [navigator.language]);

/**
 * The team's default country, or (none set yet, or the document not read yet) the one this
 * browser's languages suggest; null when neither names a country libphonenumber-js knows.
 */
export function useTeamCountry(): CountryCode | null {
  const team = useSyncDocument(TEAM.name, TEAM_DOCUMENT);
  const data = useContainerSelector(team, selectDocumentData, null);
  return useMemo(() => {
    const code = effectiveCountry(data, browserLanguages());
    return code !== null && isCountry(code) ? code : null;
  }, [data]);
}
