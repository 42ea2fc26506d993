/**
 * The team's settings as the workspace holds them: the `team-settings` document, opened for the workspace's
 * life. At an admin's sign-in, a team with no default country gets the one the admin's browser
 * suggests (its languages' region), so numbers typed in national format read from the first day;
 * an admin changes it on /admin.
 */
import type { JsonObject } from '../contracts/record';
import { teamRecord } from '../contracts/records/team';
import { guessCountry } from '../domain/country';
import { selectDocumentData, selectDocumentStatus } from '../machines/syncDocument.selectors';
import type { DocumentOptions } from './containers';
import type { DocumentActor } from './mutators/core';
import { setTeamCountry } from './mutators/team';

/** How the team document is opened (made empty on first use; the server makes it at start). */
export const TEAM_DOCUMENT: DocumentOptions = { data: {} };

/** The team's default country as stored ('' when none is set). */
export function teamCountryOf(data: JsonObject | null): string {
  return teamRecord.read(data ?? {}).defaultCountry;
}

/**
 * The country national numbers are read in: the team's, or (none set yet) the one `languages`
 * suggest; null when neither says.
 */
export function effectiveCountry(
  data: JsonObject | null,
  languages: readonly string[],
): string | null {
  return teamCountryOf(data) || guessCountry(languages);
}

/**
 * For an admin: once the document is ready with no country, sets the guessed one (once; a refusal
 * is left, an admin sets it on /admin). Returns the unsubscribe.
 */
export function suggestTeamCountry(team: DocumentActor, languages: readonly string[]): () => void {
  let tried = false;
  const check = () => {
    const snapshot = team.getSnapshot();
    if (tried || selectDocumentStatus(snapshot) !== 'ready') return;
    tried = true;
    const guess = guessCountry(languages);
    if (teamCountryOf(selectDocumentData(snapshot)) !== '' || guess === null) return;
    setTeamCountry(team, guess).catch((error: unknown) =>
      console.warn(`The team's default country could not be set to ${guess}:`, error),
    );
  };
  const subscription = team.subscribe(check);
  check();
  return () => subscription.unsubscribe();
}
