import { useId } from 'react';
import type { Contact } from '../../../contracts/records/contact';
import type { CountryCode } from '../../../domain/phone-number';
import { Modal } from '../../components/Modal';
import { useDial } from '../../phone/usePhone';
import { CallNumber } from './CallNumber';

/** Every number of a contact, each its own call button (a row shows the first two). */
export function NumbersDialog({
  contact,
  country,
  onClose,
}: {
  contact: Contact;
  country: CountryCode | null;
  onClose: () => void;
}) {
  const id = useId();
  const dial = useDial();
  const call = dial
    ? (to: string, name?: string | null) => {
        onClose();
        dial(to, name);
      }
    : null;
  return (
    <Modal labelledBy={id} onClose={onClose} className="numbers-dialog">
      <h2 id={id}>Numbers of {contact.name}</h2>
      <ul className="numbers-dialog__list">
        {contact.phones.map((phone, i) => (
          <li key={i}>
            <CallNumber name={contact.name} phone={phone} country={country} dial={call} />
          </li>
        ))}
      </ul>
      <div className="dialog-actions">
        <button type="button" className="button button--quiet" onClick={onClose}>
          Close
        </button>
      </div>
    </Modal>
  );
}
