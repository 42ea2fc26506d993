/**
 * A person's identity on Twilio Voice, derived from their identity here (their email address).
 *
 * Twilio's `<Client>` documentation says mobile SDKs "must only use alphanumeric characters and
 * underscore" in a client identifier, and that one may be up to 256 characters
 * (https://www.twilio.com/docs/voice/twiml/client); an address's `@` and `.` are outside that. So the
 * Voice token, the TwiML's `<Client><Identity>` and the `client:` addresses Twilio posts back carry
 * this encoding instead: letters and digits stay, every other character (the underscore too) becomes
 * `_` and its UTF-8 bytes in two lower-case hex digits each: `ann.lee@example.com` is
 * `ann_2elee_40example_2ecom`. It is stable (the same person always gets the same one, on every
 * server, with nothing stored) and it maps back ({@link personOfVoiceIdentity}), so every place
 * a call names a person (the webhooks, the page's incoming call) turns it back into the email the
 * team, the history and Sync know. Sync keeps the email: its identities and permissions take it
 * (https://www.twilio.com/docs/sync/api/map-permission-resource addresses them by identity in the URL).
 *
 * Every backend uses it (the voice twin refuses other identities in `<Client>` as Twilio does); an
 * email (it has an `@`) still reads back as itself, so a page or a history row from before the
 * encoding decodes the same.
 */

const ALLOWED = /^[A-Za-z0-9]$/;
/** Twilio's limit on a client identifier. */
export const VOICE_IDENTITY_MAX = 256;

/** `ann.lee@example.com` → `ann_2elee_40example_2ecom`. */
export function voiceIdentityOf(person: string): string {
  let out = '';
  for (const char of person) {
    if (ALLOWED.test(char)) out += char;
    else
      for (const byte of new TextEncoder().encode(char))
        out += `_${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}

/**
 * The person a Voice identity names: its decoding, or the identity as given when it is not one of
 * this encoding (an email, as pages and history rows from before the encoding have it).
 */
export function personOfVoiceIdentity(identity: string): string {
  if (!/^(?:[A-Za-z0-9]|_[0-9a-f]{2})+$/.test(identity)) return identity;
  const bytes: number[] = [];
  for (let i = 0; i < identity.length;) {
    if (identity[i] === '_') {
      bytes.push(parseInt(identity.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      bytes.push(identity.charCodeAt(i));
      i += 1;
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(bytes));
  } catch {
    return identity;
  }
}

/** The person a `client:` address names, or null when it names no client (a phone number). */
export function personOfClientAddress(address: string): string | null {
  return address.startsWith('client:')
    ? personOfVoiceIdentity(address.slice('client:'.length))
    : null;
}
