/**
 * Which voices speak which languages in `<Say>`, as Twilio documents them, so the twin refuses what
 * Twilio would: "Using an invalid combination of voice and language may result in error and <Say>
 * instruction failure" (https://www.twilio.com/docs/voice/twiml/say, "Attributes"). A `<Say>` with
 * no `voice` is spoken by `man` and with no `language` in `en-US` (the documented defaults).
 *
 * - `man` and `woman`, Twilio's basic voices, speak English (US and UK), Spanish, French and German
 *   (https://www.twilio.com/docs/voice/twiml/say/text-speech, "Basic voices").
 * - `Polly.<Name>` and `Polly.<Name>-Neural`: Amazon Polly's voices, each in the language(s) Amazon
 *   lists for it (https://docs.aws.amazon.com/polly/latest/dg/available-voices.html; standard and
 *   neural engines as each voice has them).
 * - `Google.<locale>-<Type>-<Letter>`: Google's voices, each in the locale its name starts with.
 *
 * An unknown voice, or one that does not speak the language, is Twilio's warning 13511 ("Say:
 * Invalid voice value", https://www.twilio.com/docs/api/errors/13511): the twin logs it and skips
 * the verb, so a caller hears nothing of it, as on Twilio when the instruction fails.
 */

type Engines = 's' | 'n' | 'sn';

/** Amazon Polly's voices: name → [languages, engines (standard, neural)]. */
const POLLY: Readonly<Record<string, readonly [readonly string[], Engines]>> = {
  Zeina: [['arb'], 's'],
  Hala: [['ar-AE'], 'n'],
  Zayd: [['ar-AE'], 'n'],
  Lisa: [['nl-BE'], 'n'],
  Arlet: [['ca-ES'], 'n'],
  Jitka: [['cs-CZ'], 'n'],
  Hiujin: [['yue-CN'], 'n'],
  Zhiyu: [['cmn-CN'], 'sn'],
  Naja: [['da-DK'], 's'],
  Mads: [['da-DK'], 's'],
  Sofie: [['da-DK'], 'n'],
  Laura: [['nl-NL'], 'n'],
  Lotte: [['nl-NL'], 's'],
  Ruben: [['nl-NL'], 's'],
  Nicole: [['en-AU'], 's'],
  Olivia: [['en-AU'], 'n'],
  Russell: [['en-AU'], 's'],
  Amy: [['en-GB'], 'sn'],
  Emma: [['en-GB'], 'sn'],
  Brian: [['en-GB'], 'sn'],
  Arthur: [['en-GB'], 'n'],
  Aditi: [['en-IN', 'hi-IN'], 's'],
  Raveena: [['en-IN'], 's'],
  Kajal: [['en-IN', 'hi-IN'], 'n'],
  Niamh: [['en-IE'], 'n'],
  Aria: [['en-NZ'], 'n'],
  Jasmine: [['en-SG'], 'n'],
  Ayanda: [['en-ZA'], 'n'],
  Danielle: [['en-US'], 'n'],
  Gregory: [['en-US'], 'n'],
  Ivy: [['en-US'], 'sn'],
  Joanna: [['en-US'], 'sn'],
  Kendra: [['en-US'], 'sn'],
  Kimberly: [['en-US'], 'sn'],
  Salli: [['en-US'], 'sn'],
  Joey: [['en-US'], 'sn'],
  Justin: [['en-US'], 'sn'],
  Kevin: [['en-US'], 'n'],
  Matthew: [['en-US'], 'sn'],
  Ruth: [['en-US'], 'n'],
  Stephen: [['en-US'], 'n'],
  Geraint: [['en-GB-WLS'], 's'],
  Suvi: [['fi-FI'], 'n'],
  Celine: [['fr-FR'], 's'],
  Lea: [['fr-FR'], 'sn'],
  Mathieu: [['fr-FR'], 's'],
  Remi: [['fr-FR'], 'n'],
  Isabelle: [['fr-BE'], 'n'],
  Chantal: [['fr-CA'], 's'],
  Gabrielle: [['fr-CA'], 'n'],
  Liam: [['fr-CA'], 'n'],
  Marlene: [['de-DE'], 's'],
  Vicki: [['de-DE'], 'sn'],
  Hans: [['de-DE'], 's'],
  Daniel: [['de-DE'], 'n'],
  Hannelore: [['de-AT'], 'n'],
  Dora: [['is-IS'], 's'],
  Karl: [['is-IS'], 's'],
  Carla: [['it-IT'], 's'],
  Bianca: [['it-IT'], 'sn'],
  Giorgio: [['it-IT'], 's'],
  Adriano: [['it-IT'], 'n'],
  Mizuki: [['ja-JP'], 's'],
  Takumi: [['ja-JP'], 'sn'],
  Kazuha: [['ja-JP'], 'n'],
  Tomoko: [['ja-JP'], 'n'],
  Seoyeon: [['ko-KR'], 'sn'],
  Liv: [['nb-NO'], 's'],
  Ida: [['nb-NO'], 'n'],
  Ewa: [['pl-PL'], 's'],
  Maja: [['pl-PL'], 's'],
  Jacek: [['pl-PL'], 's'],
  Jan: [['pl-PL'], 's'],
  Ola: [['pl-PL'], 'n'],
  Camila: [['pt-BR'], 'sn'],
  Vitoria: [['pt-BR'], 'sn'],
  Ricardo: [['pt-BR'], 's'],
  Thiago: [['pt-BR'], 'n'],
  Ines: [['pt-PT'], 'sn'],
  Cristiano: [['pt-PT'], 's'],
  Carmen: [['ro-RO'], 's'],
  Tatyana: [['ru-RU'], 's'],
  Maxim: [['ru-RU'], 's'],
  Conchita: [['es-ES'], 's'],
  Lucia: [['es-ES'], 'sn'],
  Enrique: [['es-ES'], 's'],
  Sergio: [['es-ES'], 'n'],
  Mia: [['es-MX'], 'sn'],
  Andres: [['es-MX'], 'n'],
  Lupe: [['es-US'], 'sn'],
  Penelope: [['es-US'], 's'],
  Miguel: [['es-US'], 's'],
  Pedro: [['es-US'], 'n'],
  Astrid: [['sv-SE'], 's'],
  Elin: [['sv-SE'], 'n'],
  Filiz: [['tr-TR'], 's'],
  Burcu: [['tr-TR'], 'n'],
  Gwyneth: [['cy-GB'], 's'],
};

/** What Twilio's basic voices speak (with the older codes they also take). */
const BASIC = ['en-US', 'en-GB', 'es-ES', 'fr-FR', 'de-DE', 'en', 'es', 'fr', 'de'];

/** The languages `voice` speaks as Twilio names it; null for a voice Twilio does not have. */
export function languagesOf(voice: string): readonly string[] | null {
  if (voice === 'man' || voice === 'woman') return BASIC;
  const polly = /^Polly\.([A-Za-z]+)(-Neural)?$/.exec(voice);
  if (polly) {
    const known = POLLY[polly[1]!];
    if (!known) return null;
    const [languages, engines] = known;
    return engines.includes(polly[2] ? 'n' : 's') ? languages : null;
  }
  const google = /^Google\.([a-z]{2,3}-[A-Z]{2})-[A-Za-z0-9]+-[A-Z]$/.exec(voice);
  return google ? [google[1]!] : null;
}

/**
 * Why Twilio would not speak a `<Say>` with these attributes (warning 13511), or null when it
 * would. Languages compare without case (`en-us` is `en-US`).
 */
export function sayRefusal(voice: string | null, language: string | null): string | null {
  const v = voice ?? 'man';
  const lang = (language ?? 'en-US').toLowerCase();
  const speaks = languagesOf(v);
  if (speaks === null) return `13511 Say: Invalid voice value: Twilio has no voice "${v}"`;
  if (!speaks.some((l) => l.toLowerCase() === lang))
    return `13511 Say: Invalid voice value: ${v} does not speak ${language ?? 'en-US'} (it speaks ${speaks.join(', ')})`;
  return null;
}
