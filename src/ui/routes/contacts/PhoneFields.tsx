import { countryName, type CountryCode } from '../../../domain/phone-number';
import type { ContactErrors, ContactForm } from './validation';
import { LIMITS } from './validation';

type Phones = ContactForm['phones'];

/** The phone rows of the contact form: a label and a number each, add and remove. */
export function PhoneFields({
  phones,
  errors,
  idOf,
  country,
  onChange,
}: {
  phones: Phones;
  errors: ContactErrors;
  idOf: (field: string) => string;
  country: CountryCode | null;
  onChange: (phones: Phones) => void;
}) {
  const update = (index: number, patch: Partial<Phones[number]>) =>
    onChange(phones.map((phone, i) => (i === index ? { ...phone, ...patch } : phone)));
  return (
    <fieldset
      className="phones"
      aria-describedby={
        errors.phones ? `${idOf('phones-hint')} ${idOf('phones-error')}` : idOf('phones-hint')
      }
    >
      <legend>Phone numbers</legend>
      <p className="field__hint" id={idOf('phones-hint')}>
        {country
          ? `A number of ${countryName(country)} as you would dial it there, one with + and the country code, or an extension.`
          : 'A number with + and the country code, or an extension.'}
      </p>
      {errors.phones && (
        <p className="field__error" id={idOf('phones-error')}>
          {errors.phones}
        </p>
      )}
      {phones.map((phone, index) => {
        const numberError = errors.phoneNumbers?.[index];
        const labelError = errors.phoneLabels?.[index];
        return (
          <div className="phones__row" key={index}>
            <div className="field phones__label">
              <label htmlFor={idOf(`phone-label-${index}`)}>Label</label>
              <input
                id={idOf(`phone-label-${index}`)}
                list={idOf('phone-labels')}
                value={phone.label}
                onChange={(e) => update(index, { label: e.target.value })}
                aria-invalid={labelError ? true : undefined}
                aria-describedby={labelError ? idOf(`phone-label-${index}-error`) : undefined}
              />
              {labelError && (
                <p className="field__error" id={idOf(`phone-label-${index}-error`)}>
                  {labelError}
                </p>
              )}
            </div>
            <div className="field phones__number">
              <label htmlFor={idOf(`phone-number-${index}`)}>Number</label>
              <input
                id={idOf(`phone-number-${index}`)}
                type="tel"
                inputMode="tel"
                autoComplete="off"
                value={phone.number}
                onChange={(e) => update(index, { number: e.target.value })}
                aria-invalid={numberError || (errors.phones && index === 0) ? true : undefined}
                aria-describedby={numberError ? idOf(`phone-number-${index}-error`) : undefined}
              />
              {numberError && (
                <p className="field__error" id={idOf(`phone-number-${index}-error`)}>
                  {numberError}
                </p>
              )}
            </div>
            {phones.length > 1 && (
              <button
                type="button"
                className="button button--quiet phones__remove"
                aria-label={`Remove phone ${index + 1}`}
                onClick={() => onChange(phones.filter((_, i) => i !== index))}
              >
                Remove
              </button>
            )}
          </div>
        );
      })}
      <datalist id={idOf('phone-labels')}>
        <option value="Mobile" />
        <option value="Work" />
        <option value="Home" />
        <option value="Extension" />
      </datalist>
      {phones.length < LIMITS.phones && (
        <button
          type="button"
          className="button button--quiet"
          onClick={() => onChange([...phones, { label: 'Work', number: '' }])}
        >
          Add another number
        </button>
      )}
    </fieldset>
  );
}
