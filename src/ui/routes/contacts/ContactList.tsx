import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useRef } from 'react';
import type { MapItem } from '../../../machines/syncPorts';
import { useDial } from '../../phone/usePhone';
import { contactFromData } from './contact';
import type { CountryCode } from '../../../domain/phone-number';
import { CallNumber, PHONE_NOT_READY } from './CallNumber';

const ROW_HEIGHT = 72;
/** Numbers a row shows (each its own call button); the rest are behind "+N more". */
const SHOWN_NUMBERS = 2;

/** A row reads its contact from the map item when it renders: only the rows in view hold a copy. */
const ContactRow = memo(function ContactRow({
  item,
  position,
  total,
  top,
  country,
  onEdit,
  onDelete,
  onMore,
}: {
  item: MapItem;
  position: number;
  total: number;
  top: number;
  country: CountryCode | null;
  onEdit: (id: string) => void;
  onDelete: (id: string) => void;
  onMore: (id: string) => void;
}) {
  const contact = contactFromData(item.data);
  const dial = useDial();
  const more = contact.phones.length - SHOWN_NUMBERS;
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
        {contact.phones.slice(0, SHOWN_NUMBERS).map((phone, i) => (
          <li key={i}>
            <CallNumber name={contact.name} phone={phone} country={country} dial={dial} />
          </li>
        ))}
        {more > 0 && (
          <li>
            <button
              type="button"
              className="contact-row__more"
              aria-label={`All ${contact.phones.length} numbers of ${contact.name}`}
              onClick={() => onMore(item.key)}
            >
              +{more} more
            </button>
          </li>
        )}
      </ul>
      <div className="contact-row__actions">
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
  country,
  onEdit,
  onDelete,
  onMore,
}: {
  items: readonly MapItem[];
  /** The query these items answer (a marker for tests and the bench: results are rendered). */
  query: string;
  /** The team's country: numbers in it are shown as dialled there. */
  country: CountryCode | null;
  onEdit: (id: string) => void;
  onDelete: (id: string) => void;
  onMore: (id: string) => void;
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
      className="virtual-list contacts__list"
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
              country={country}
              onEdit={onEdit}
              onDelete={onDelete}
              onMore={onMore}
            />
          );
        })}
      </ul>
    </div>
  );
});
