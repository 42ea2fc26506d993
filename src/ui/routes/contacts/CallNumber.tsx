import type { Phone } from '../../../contracts/records/contact';
import { formatNumber, type CountryCode } from '../../../domain/phone-number';

export const PHONE_NOT_READY = 'The phone is not ready to call';

/**
 * One number of a contact as a call button: its label and the number as dialled in the team's
 * country ("Mobile 020 7946 0958"); it calls the stored E.164 number under the contact's name.
 * Disabled (and described by #call-not-ready) while the phone cannot place a call.
 */
export function CallNumber({
  name,
  phone,
  country,
  dial,
}: {
  name: string;
  phone: Phone;
  country: CountryCode | null;
  dial: ((to: string, displayName?: string | null) => void) | null;
}) {
  const shown = formatNumber(phone.number, country);
  const label = phone.label.trim() || 'Phone';
  return (
    <button
      type="button"
      className="contact-call"
      disabled={!dial}
      title={dial ? undefined : PHONE_NOT_READY}
      aria-describedby={dial ? undefined : 'call-not-ready'}
      aria-label={`Call ${name}, ${label} ${shown}`}
      data-testid="contact-call"
      data-number={phone.number}
      onClick={() => dial?.(phone.number, name)}
    >
      <span className="contact-call__label">{label}</span>{' '}
      <span className="contact-call__number">{shown}</span>
    </button>
  );
}
