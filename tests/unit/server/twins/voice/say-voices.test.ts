/**
 * `<Say>` voices on the voice twin (server/twins/voice/twiml/voices.ts), against Twilio's own
 * examples (https://www.twilio.com/docs/voice/twiml/say): a voice and a language it speaks are
 * spoken; a voice Twilio does not have, or one that does not speak the language, is warning 13511
 * and the verb is skipped.
 */
import { describe, expect, it } from 'vitest';
import { languagesOf, sayRefusal } from '../../../../../server/twins/voice/twiml/voices';

describe('Say voices on the twin', () => {
  it('speaks the documentation’s examples', () => {
    // <Say>Hello!</Say>: man, en-US.
    expect(sayRefusal(null, null)).toBeNull();
    // <Say voice="woman" language="fr-FR">Chapeau!</Say>
    expect(sayRefusal('woman', 'fr-FR')).toBeNull();
    // <Say voice="Polly.Amy" language="en-GB">…</Say>, and Google's named the same way.
    expect(sayRefusal('Polly.Amy', 'en-GB')).toBeNull();
    expect(sayRefusal('Google.en-GB-Standard-A', 'en-GB')).toBeNull();
    // Neural where Amazon has the voice as neural; languages compared without case.
    expect(sayRefusal('Polly.Joanna-Neural', 'en-us')).toBeNull();
    expect(sayRefusal('Polly.Aditi', 'hi-IN')).toBeNull();
  });

  it('refuses a voice Twilio does not have, or one in a language it does not speak (13511)', () => {
    expect(sayRefusal('Polly.Nobody', 'en-US')).toMatch(/^13511 .*no voice "Polly.Nobody"/);
    expect(sayRefusal('Polly.Nicole-Neural', 'en-AU')).toMatch(/^13511/); // standard only
    expect(sayRefusal('Polly.Joanna', 'de-DE')).toBe(
      '13511 Say: Invalid voice value: Polly.Joanna does not speak de-DE (it speaks en-US)',
    );
    expect(sayRefusal('Google.de-DE-Standard-A', 'en-US')).toMatch(/^13511/);
    // A language with no voice is spoken by `man`, who speaks no Dutch: the defect issue 24 named.
    expect(sayRefusal(null, 'nl-NL')).toMatch(/man does not speak nl-NL/);
    expect(languagesOf('alice')).toBeNull();
  });
});
