/**
 * The languages an announcement may be spoken in: the ones both text-to-speech engines callers may
 * hear speak. The server renders announcements with eSpeak NG (its voice code, `en-gb`); when it
 * cannot in time, the call has Twilio's `<Say>` of the text instead (its `language` attribute,
 * `en-GB`: Amazon Polly's and Google's voices, see server/calls/twiml.ts). eSpeak NG also has
 * voices for constructed and historical languages (Klingon, Quenya, Sindarin, Lojban, Ancient
 * Greek…) and accents no `<Say>` voice has; those are left out, so what the admin picks is what a
 * caller hears either way. Names are in English, as the admin area is.
 */
export interface CallerLanguage {
  /** eSpeak NG's voice code, stored in the announcement. */
  code: string;
  name: string;
  /** The `<Say language>` it is spoken in on Twilio. */
  say: string;
}

const LIST: readonly (readonly [string, string, string])[] = [
  ['af', 'Afrikaans', 'af-ZA'],
  ['ar', 'Arabic', 'ar-AE'],
  ['bg', 'Bulgarian', 'bg-BG'],
  ['bn', 'Bengali', 'bn-IN'],
  ['ca', 'Catalan', 'ca-ES'],
  ['yue', 'Chinese (Cantonese)', 'yue-HK'],
  ['cmn', 'Chinese (Mandarin)', 'cmn-CN'],
  ['cs', 'Czech', 'cs-CZ'],
  ['da', 'Danish', 'da-DK'],
  ['nl', 'Dutch', 'nl-NL'],
  ['en-gb', 'English (United Kingdom)', 'en-GB'],
  ['en-us', 'English (United States)', 'en-US'],
  ['fi', 'Finnish', 'fi-FI'],
  ['fr-be', 'French (Belgium)', 'fr-BE'],
  ['fr-fr', 'French (France)', 'fr-FR'],
  ['de', 'German', 'de-DE'],
  ['el', 'Greek', 'el-GR'],
  ['gu', 'Gujarati', 'gu-IN'],
  ['he', 'Hebrew', 'he-IL'],
  ['hi', 'Hindi', 'hi-IN'],
  ['hu', 'Hungarian', 'hu-HU'],
  ['is', 'Icelandic', 'is-IS'],
  ['id', 'Indonesian', 'id-ID'],
  ['it', 'Italian', 'it-IT'],
  ['ja', 'Japanese', 'ja-JP'],
  ['kn', 'Kannada', 'kn-IN'],
  ['ko', 'Korean', 'ko-KR'],
  ['lv', 'Latvian', 'lv-LV'],
  ['ms', 'Malay', 'ms-MY'],
  ['ml', 'Malayalam', 'ml-IN'],
  ['mr', 'Marathi', 'mr-IN'],
  ['nb', 'Norwegian (Bokmål)', 'nb-NO'],
  ['pl', 'Polish', 'pl-PL'],
  ['pt-br', 'Portuguese (Brazil)', 'pt-BR'],
  ['pt', 'Portuguese (Portugal)', 'pt-PT'],
  ['pa', 'Punjabi', 'pa-IN'],
  ['ro', 'Romanian', 'ro-RO'],
  ['ru', 'Russian', 'ru-RU'],
  ['sr', 'Serbian', 'sr-RS'],
  ['sk', 'Slovak', 'sk-SK'],
  ['es-419', 'Spanish (Latin America)', 'es-MX'],
  ['es', 'Spanish (Spain)', 'es-ES'],
  ['sv', 'Swedish', 'sv-SE'],
  ['ta', 'Tamil', 'ta-IN'],
  ['te', 'Telugu', 'te-IN'],
  ['th', 'Thai', 'th-TH'],
  ['tr', 'Turkish', 'tr-TR'],
  ['uk', 'Ukrainian', 'uk-UA'],
  ['vi', 'Vietnamese', 'vi-VN'],
  ['cy', 'Welsh', 'cy-GB'],
];

export const CALLER_LANGUAGES: readonly CallerLanguage[] = LIST.map(([code, name, say]) => ({
  code,
  name,
  say,
}));

const BY_CODE = new Map(CALLER_LANGUAGES.map((l) => [l.code, l]));

export const callerLanguage = (code: string): CallerLanguage | undefined =>
  BY_CODE.get(code.toLowerCase());
