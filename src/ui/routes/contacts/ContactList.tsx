import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useRef } from 'react';
import type { MapItem } from '../../../machines/syncPorts';
import { useDial } from '../../phone/phone';
import { contactFromData } from './contact';

const ROW_HEIGHT = 72;
const PHONE_NOT_READY = 'The phone is not ready to call';

/** A row reads its contact from the map item when it renders: only the rows in view hold a copy. */
const ContactRow = memo(function ContactRow({
  item,
  position,
  total,
  top,
  onEdit,
  onDelete,
}: {
  item: MapItem;
  position: number;
  total: number;
  top: number;
  onEdit: (id: string) => void;
  onDelete: (id: string) => void;
}) {
  const contact = contactFromData(item.data);
  const dial = useDial();
  const number = contact.phones[0]?.number ?? '';
  return (
    <li
      className="contact-row"
      data-testid="contact-row"
      data-contact-id={item.key}
      aria-setsize={total}
      aria-posinset={position}
      style={{ transform: `translateY(${top}px)` }}
    >
      <div className="contact-row__who">
        <span className="contact-row__name">{contact.name}</span>
        {contact.company && <span className="contact-row__company">{contact.company}</span>}
      </div>
      <ul className="contact-row__phones" aria-label={`Numbers of ${contact.name}`}>
        {contact.phones.slice(0, 2).map((phone, i) => (
          <li key={i}>
            <span className="contact-row__label">{phone.label || 'Phone'}</span>{' '}
            <span className="contact-row__number">{phone.number}</span>
          </li>
        ))}
        {contact.phones.length > 2 && <li>+{contact.phones.length - 2} more</li>}
      </ul>
      <div className="contact-row__actions">
        <span title={dial ? undefined : PHONE_NOT_READY}>
          <button
            type="button"
            className="button button--quiet"
            disabled={!dial || number === ''}
            aria-describedby={dial ? undefined : 'call-not-ready'}
            aria-label={`Call ${contact.name}${number ? ` on ${number}` : ''}`}
            onClick={() => dial?.(number, contact.name)}
          >
            Call
          </button>
        </span>
        <button
          type="button"
          className="button button--quiet"
          aria-label={`Edit ${contact.name}`}
          onClick={() => onEdit(item.key)}
        >
          Edit
        </button>
        <button
          type="button"
          className="button button--quiet"
          aria-label={`Delete ${contact.name}`}
          onClick={() => onDelete(item.key)}
        >
          Delete
        </button>
      </div>
    </li>
  );
});

/**
 * The contacts, virtualised: only the rows in view (plus a few) are in the DOM, so 10,000 contacts
 * scroll like 20. Rows are memoised per map item, which changes only when its contact does;
 * the list itself re-renders only when its results or query change.
 */
export const ContactList = memo(function ContactList({
  items,
  query,
  onEdit,
  onDelete,
}: {
  items: readonly MapItem[];
  /** The query these items answer (a marker for tests and the bench: results are rendered). */
  query: string;
  onEdit: (id: string) => void;
  onDelete: (id: string) => void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 6,
    getItemKey: (index) => items[index]?.key ?? index,
  });
  return (
    <div
      className="virtual-list"
      ref={scroller}
      data-testid="contact-scroller"
      data-query={query}
      tabIndex={0}
      aria-label="Contacts"
    >
      <p id="call-not-ready" hidden>
        {PHONE_NOT_READY}
      </p>
      <ul className="virtual-list__rows" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((row) => {
          const item = items[row.index];
          if (item === undefined) return null;
          return (
            <ContactRow
              key={row.key}
              item={item}
              position={row.index + 1}
              total={items.length}
              top={row.start}
              onEdit={onEdit}
              onDelete={onDelete}
            />
          );
        })}
      </ul>
    </div>
  );
});
