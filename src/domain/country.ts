/**
 * The country a browser's languages suggest ("en-GB" → GB; "de" → DE, the language's likely
 * region), without the phone-number metadata (the workspace reads it at sign-in).
 */
const REGION = /^[A-Z]{2}$/;

/** The first two-letter region the languages name or imply; null when none does. */
export function guessCountry(languages: readonly string[]): string | null {
  for (const tag of languages) {
    let region: string | undefined;
    try {
      const locale = new Intl.Locale(tag);
      region = locale.region ?? locale.maximize().region;
    } catch {
      continue;
    }
    if (region && REGION.test(region)) return region;
  }
  return null;
}
