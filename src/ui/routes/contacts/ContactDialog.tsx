import { useId, useRef, useState, type FormEvent } from 'react';
import { ContactWriteError } from '../../../app/mutators/contacts';
import { WriteRefused } from '../../../app/mutators/core';
import { Modal } from '../../components/Modal';
import { PhoneFields } from './PhoneFields';
import {
  errorsFromRefusal,
  LIMITS,
  validateContact,
  type ContactErrors,
  type ContactForm,
} from './validation';
import type { Contact } from '../../../contracts/records/contact';
import type { CountryCode } from '../../../domain/phone-number';

/** The form's fields in the order focus should visit the first error. */
const FIELD_ORDER = ['name', 'company', 'phones', 'email', 'note'] as const;

function firstInvalid(errors: ContactErrors): string | null {
  for (const field of FIELD_ORDER) {
    if (field === 'phones') {
      const rows = [
        ...Object.keys(errors.phoneNumbers ?? {}),
        ...Object.keys(errors.phoneLabels ?? {}),
      ].map(Number);
      if (rows.length) return `phone-number-${Math.min(...rows)}`;
      if (errors.phones) return 'phone-number-0';
    } else if (errors[field]) return field;
  }
  return null;
}

/**
 * Add or edit one contact. Validation runs on submit (Enter in any field) and shows each problem
 * beside its field, focusing the first. A failed save keeps the dialog open with everything typed
 * and says why; only a successful save closes it. `gone` means a colleague deleted the contact
 * while it was open: saving then restores it.
 */
export function ContactDialog({
  mode,
  initial,
  gone,
  country,
  onSave,
  onClose,
}: {
  mode: 'add' | 'edit';
  initial: ContactForm;
  gone: boolean;
  /** The country national numbers are read in (the team's). */
  country: CountryCode | null;
  onSave: (contact: Contact, restore: boolean) => Promise<void>;
  onClose: () => void;
}) {
  const uid = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const [form, setForm] = useState(initial);
  const [errors, setErrors] = useState<ContactErrors>({});
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string | null>(null);
  // Set once a save learned the contact is gone, even before the map's removal event arrives.
  const [learnedGone, setLearnedGone] = useState(false);
  const restore = mode === 'edit' && (gone || learnedGone);

  const id = (field: string) => `${uid}-${field}`;
  const set = <K extends keyof ContactForm>(field: K, value: ContactForm[K]) =>
    setForm((current) => ({ ...current, [field]: value }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (saving) return;
    const checked = validateContact(form, country);
    if (!checked.ok) {
      setErrors(checked.errors);
      setSaveError(null);
      const target = firstInvalid(checked.errors);
      if (target) document.getElementById(id(target))?.focus();
      return;
    }
    setErrors({});
    setSaveError(null);
    setSaving(true);
    try {
      await onSave(checked.contact, restore);
      onClose();
    } catch (error) {
      setSaving(false);
      if (error instanceof WriteRefused) {
        // Refused by the contact's contract before anything was sent: said beside the field.
        const refused = errorsFromRefusal(error.field, error.reason);
        setErrors(refused);
        const target = firstInvalid(refused);
        if (target) document.getElementById(id(target))?.focus();
        return;
      }
      if (error instanceof ContactWriteError && error.gone) setLearnedGone(true);
      setSaveError(error instanceof Error ? error.message : String(error));
    }
  }

  const title = mode === 'add' ? 'New contact' : 'Edit contact';
  const field = (name: 'name' | 'company' | 'email', label: string, extra: object = {}) => (
    <div className="field">
      <label htmlFor={id(name)}>{label}</label>
      <input
        id={id(name)}
        name={name}
        value={form[name]}
        onChange={(e) => set(name, e.target.value)}
        aria-invalid={errors[name] ? true : undefined}
        aria-describedby={errors[name] ? id(`${name}-error`) : undefined}
        {...extra}
      />
      {errors[name] && (
        <p className="field__error" id={id(`${name}-error`)}>
          {errors[name]}
        </p>
      )}
    </div>
  );

  return (
    <Modal labelledBy={id('title')} onClose={() => !saving && onClose()} className="contact-dialog">
      <form ref={formRef} onSubmit={(e) => void submit(e)} noValidate aria-busy={saving}>
        <h2 id={id('title')}>{title}</h2>
        {restore && !saveError && (
          <p className="form-notice" role="status">
            A colleague deleted this contact. Saving will restore it with your changes.
          </p>
        )}
        {saveError && (
          <p className="form-error" role="alert" data-testid="save-error">
            {saveError}
          </p>
        )}
        {field('name', 'Name', { autoFocus: true, autoComplete: 'off' })}
        {field('company', 'Company', { autoComplete: 'off' })}
        <PhoneFields
          phones={form.phones}
          errors={errors}
          idOf={id}
          country={country}
          onChange={(phones) => set('phones', phones)}
        />
        {field('email', 'Email (optional)', { type: 'email', autoComplete: 'off' })}
        <div className="field">
          <label htmlFor={id('note')}>Note (optional)</label>
          <textarea
            id={id('note')}
            name="note"
            rows={3}
            value={form.note}
            onChange={(e) => set('note', e.target.value)}
            onKeyDown={(e) => {
              // Enter submits everywhere; Shift+Enter is a new line in the note.
              if (e.key === 'Enter' && !e.shiftKey) {
                e.preventDefault();
                formRef.current?.requestSubmit();
              }
            }}
            aria-invalid={errors.note ? true : undefined}
            aria-describedby={id('note-hint')}
          />
          <p className={errors.note ? 'field__error' : 'field__hint'} id={id('note-hint')}>
            {errors.note ??
              `${form.note.trim().length} / ${LIMITS.note} characters. Shift+Enter for a new line.`}
          </p>
        </div>
        <div className="dialog-actions">
          <button
            type="button"
            className="button button--quiet"
            onClick={onClose}
            disabled={saving}
          >
            Cancel
          </button>
          <button type="submit" className="button button--primary" disabled={saving}>
            {saving ? 'Saving…' : restore ? 'Restore contact' : 'Save'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
