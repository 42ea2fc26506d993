import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { SnapshotFrom } from 'xstate';
import {
  selectMapError,
  selectMapHasMore,
  selectMapItem,
  selectMapLoadingPage,
  selectMapStatus,
} from '../../../machines/syncMap.selectors';
import { useToastActor } from '../../app/actors';
import { Screen } from '../../components/Screen';
import { useContainerSelector, useSyncMap, type MapActor } from '../../sync/useSyncContainers';
import { useSyncAvailability } from '../../sync/SyncProvider';
import { LoadFailure } from '../../sync/LoadFailure';
import { CONTACTS } from '../../../contracts/objects';
import { SHARED_MAP } from '../../../app/containers';
import { createContact, deleteContact, updateContact } from '../../../app/mutators/contacts';
import { contactFromData } from './contact';
import { ContactDialog } from './ContactDialog';
import { ContactList } from './ContactList';
import './contacts.css';
import { DeleteDialog } from './DeleteDialog';
import { NumbersDialog } from './NumbersDialog';
import { indexContacts, searchContacts } from './search';
import { emptyForm, formFromContact, type ContactForm } from './validation';
import { useTeamCountry } from '../../components/useTeamCountry';
import type { Contact } from '../../../contracts/records/contact';
import { newContactId } from '../../../contracts/records/contact';

/**
 * The map's item store itself, not `selectMapItems`: the index sorts by name anyway, so a second
 * array of every contact sorted by key (kept per store version) would only cost heap and a sort.
 */
const selectStore = (snapshot: SnapshotFrom<MapActor>) => snapshot.context.items;

const selectPageFailed = (snapshot: SnapshotFrom<MapActor>) =>
  snapshot.matches({ ready: 'pageFailed' });

type Open =
  | { kind: 'add'; id: string }
  /** The form starts from the contact as it was when the dialog opened, not as it changes under it. */
  | { kind: 'edit'; id: string; initial: ContactForm }
  | { kind: 'delete'; id: string }
  /** Every number of a contact, to call one the row does not show. */
  | { kind: 'numbers'; id: string }
  | null;

/**
 * /contacts on the `contacts` map: the whole map is held (paged in the background), indexed once
 * per contact and searched on every keystroke; changes from anyone show up live.
 */
export function Component() {
  const toast = useToastActor();
  const availability = useSyncAvailability();
  const contacts = useSyncMap(CONTACTS.name, SHARED_MAP);
  const status = useContainerSelector(contacts, selectMapStatus, 'opening');
  const store = useContainerSelector(contacts, selectStore, null);
  const loadingPage = useContainerSelector(contacts, selectMapLoadingPage, false);
  const hasMore = useContainerSelector(contacts, selectMapHasMore, false);
  const error = useContainerSelector(contacts, selectMapError, null);
  const pageFailed = useContainerSelector(contacts, selectPageFailed, false);

  const [query, setQuery] = useState('');
  const index = useMemo(() => indexContacts(store?.values() ?? []), [store]);
  // Filtering the precomputed index is a few milliseconds for 10,000 contacts: done in the
  // keystroke's own render, so results show in the next frame (deferring it costs a frame).
  const results = useMemo(() => searchContacts(index, query), [index, query]);

  const [open, setOpen] = useState<Open>(null);
  // The dialogs look their contact up in the machine's store (no per-contact map of our own).
  const selectOpen = useMemo(() => selectMapItem(open?.id ?? ''), [open?.id]);
  const openItem = useContainerSelector(contacts, selectOpen, undefined);
  const contactsRef = useRef(contacts);
  useEffect(() => {
    contactsRef.current = contacts;
  });
  const country = useTeamCountry();
  const onEdit = useCallback(
    (id: string) => {
      const snapshot = contactsRef.current?.getSnapshot();
      const item = snapshot && selectMapItem(id)(snapshot);
      if (item)
        setOpen({
          kind: 'edit',
          id,
          initial: formFromContact(contactFromData(item.data), country),
        });
    },
    [country],
  );
  const onDelete = useCallback((id: string) => setOpen({ kind: 'delete', id }), []);
  const onMore = useCallback((id: string) => setOpen({ kind: 'numbers', id }), []);
  const close = useCallback(() => setOpen(null), []);

  const complete = status === 'ready' && !loadingPage && !hasMore;
  const stillLoading = status === 'opening' || (status === 'ready' && (loadingPage || hasMore));
  const failed =
    availability.state === 'failed' || status === 'failed' || status === 'removed' || pageFailed;

  async function save(contact: Contact, restore: boolean) {
    if (!contacts || open === null || open.kind === 'delete' || open.kind === 'numbers') return;
    if (open.kind === 'add' || restore) await createContact(contacts, open.id, contact);
    else await updateContact(contacts, open.id, contact);
    toast.send({
      type: 'toast.show',
      message: `${contact.name} ${open.kind === 'add' ? 'added' : 'saved'}.`,
      toastType: 'success',
    });
  }

  async function remove(id: string) {
    if (!contacts) return;
    const name = (openItem && contactFromData(openItem.data).name) || 'The contact';
    await deleteContact(contacts, id);
    toast.send({ type: 'toast.show', message: `${name} deleted.`, toastType: 'success' });
  }

  return (
    <Screen title="Contacts">
      <div className="contacts__toolbar">
        <label className="visually-hidden" htmlFor="contact-search">
          Search contacts
        </label>
        <input
          id="contact-search"
          type="search"
          className="contacts__search"
          placeholder="Search by name, company or number"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          autoComplete="off"
          data-focus-fallback
        />
        <button
          type="button"
          className="button button--primary"
          disabled={contacts === undefined || status !== 'ready'}
          onClick={() => setOpen({ kind: 'add', id: newContactId() })}
        >
          Add contact
        </button>
      </div>
      <p className="contacts__count" role="status" data-testid="contact-count">
        {stillLoading && !failed
          ? index.items.length
            ? `Loading contacts… ${index.items.length.toLocaleString()} so far`
            : 'Loading contacts…'
          : query.trim()
            ? `${results.length.toLocaleString()} of ${index.items.length.toLocaleString()} contacts match`
            : `${index.items.length.toLocaleString()} contacts`}
      </p>
      {failed && (
        <LoadFailure
          availability={availability}
          what="Contacts"
          error={error}
          removed={
            status === 'removed'
              ? 'The shared contact list was removed. Reload the page to start a new one.'
              : null
          }
          onRetry={contacts ? () => contacts.send({ type: 'map.retry' }) : null}
        />
      )}
      {complete && index.items.length === 0 ? (
        <div className="empty-state" data-testid="empty-state">
          <p className="empty-state__lead">No contacts yet.</p>
          <p>Add the people and companies your team calls, and everyone sees them at once.</p>
        </div>
      ) : results.length === 0 && query.trim() && !stillLoading ? (
        <div className="empty-state" data-testid="no-results">
          <p className="empty-state__lead">No contacts match “{query.trim()}”.</p>
          <p>Search looks at names, companies and phone numbers.</p>
        </div>
      ) : (
        <ContactList
          items={results}
          query={query}
          country={country}
          onEdit={onEdit}
          onDelete={onDelete}
          onMore={onMore}
        />
      )}
      {open?.kind === 'add' && (
        <ContactDialog
          mode="add"
          initial={emptyForm()}
          gone={false}
          country={country}
          onSave={save}
          onClose={close}
        />
      )}
      {open?.kind === 'edit' && (
        <ContactDialog
          key={open.id}
          mode="edit"
          initial={open.initial}
          gone={openItem === undefined}
          country={country}
          onSave={save}
          onClose={close}
        />
      )}
      {open?.kind === 'numbers' && openItem && (
        <NumbersDialog contact={contactFromData(openItem.data)} country={country} onClose={close} />
      )}
      {open?.kind === 'delete' && (
        <DeleteDialog
          name={openItem ? contactFromData(openItem.data).name : null}
          onConfirm={() => remove(open.id)}
          onClose={close}
        />
      )}
    </Screen>
  );
}
