/**
 * The dial box: a combobox (downshift's useCombobox, the ARIA 1.2 pattern) over colleagues, ring
 * groups and contacts' numbers, matched by the start of any word, number or extension (dial.ts).
 * Picking a suggestion calls it; Enter on what was typed calls the one entry it matches, a number,
 * or says in a sentence why not (nobody, several). Contacts are opened once the box is first used.
 */
import { useCombobox } from 'downshift';
import {
  useCallback,
  useEffect,
  useId,
  useMemo,
  useState,
  useSyncExternalStore,
  type FormEvent,
  type RefObject,
} from 'react';
import { SHARED_MAP } from '../../app/containers';
import { CONTACTS, GROUPS, PRESENCE, USERS } from '../../contracts/objects';
import type { Contact } from '../../contracts/records/contact';
import { groupRecord } from '../../contracts/records/group';
import { userRecord } from '../../contracts/records/user';
import { presenceOf } from '../../domain/presence';
import { selectCallLive } from '../../machines/call.selectors';
import type { CallActor } from '../../machines/device.setup';
import { selectMapItems } from '../../machines/syncMap.selectors';
import type { MapItem } from '../../machines/syncPorts';
import { useTeamCountry } from '../components/useTeamCountry';
import { contactFromData } from '../routes/contacts/contact';
import { useContainerSelector, useSyncMap } from '../sync/useSyncContainers';
import {
  dialEntries,
  resolveDial,
  suggest,
  type Dialable,
  type DialableGroup,
  type DialEntry,
} from './dial';

const NO_ITEMS: readonly MapItem[] = [];
const NO_CONTACTS: readonly Contact[] = [];

/** Whether any of the calls is live (ringing, connecting, open): re-read as each call changes. */
function useAnyLive(calls: readonly CallActor[]): boolean {
  const subscribe = useCallback(
    (onChange: () => void) => {
      const subscriptions = calls.map((call) => call.subscribe(onChange));
      return () => subscriptions.forEach((s) => s.unsubscribe());
    },
    [calls],
  );
  const read = useCallback(() => calls.some((call) => selectCallLive(call.getSnapshot())), [calls]);
  return useSyncExternalStore(subscribe, read, read);
}

/** The colleagues, with presence when the map is held. */
function usePeople(): Dialable[] {
  const users = useContainerSelector(useSyncMap(USERS.name, SHARED_MAP), selectMapItems, NO_ITEMS);
  const presence = useContainerSelector(
    useSyncMap(PRESENCE.name, SHARED_MAP),
    selectMapItems,
    NO_ITEMS,
  );
  return useMemo(() => {
    const states = new Map(presence.map((item) => [item.key, presenceOf(item.data)]));
    return users.map((item) => {
      const user = userRecord.read(item.data);
      return {
        identity: item.key,
        name: user?.name ?? item.key,
        email: user?.email ?? '',
        extension: user?.extension ?? null,
        presence: states.get(item.key) ?? 'offline',
      };
    });
  }, [users, presence]);
}

function useGroups(): DialableGroup[] {
  const items = useContainerSelector(useSyncMap(GROUPS.name, SHARED_MAP), selectMapItems, NO_ITEMS);
  return useMemo(
    () =>
      items.map((item) => {
        const group = groupRecord.read(item.data);
        return { id: item.key, name: group.name, number: group.number };
      }),
    [items],
  );
}

export function DialBox({
  dial,
  calls,
  inputRef,
}: {
  dial: (to: string, displayName?: string | null) => void;
  calls: readonly CallActor[];
  inputRef: RefObject<HTMLInputElement | null>;
}) {
  const id = useId();
  const people = usePeople();
  const groups = useGroups();
  const country = useTeamCountry();
  // Contacts are opened once the box is first used, not on every page load.
  const [searching, setSearching] = useState(false);
  const [contacts, setContacts] = useState<readonly Contact[]>(NO_CONTACTS);
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const busy = useAnyLive(calls);

  const entries = useMemo(
    () => dialEntries(people, groups, contacts, country),
    [people, groups, contacts, country],
  );
  const items = useMemo(() => suggest(entries, text), [entries, text]);

  const call = (to: string, displayName: string | null) => {
    setProblem(null);
    setText('');
    dial(to, displayName);
  };

  const combobox = useCombobox<DialEntry>({
    items,
    inputValue: text,
    selectedItem: null,
    inputId: `${id}-input`,
    labelId: `${id}-label`,
    menuId: `${id}-menu`,
    itemToString: (item) => item?.name ?? '',
    itemToKey: (item) => item?.id,
    onSelectedItemChange: ({ selectedItem }) => {
      if (!selectedItem) return;
      if (busy) setProblem('Finish the call first: hang up, then call again.');
      else call(selectedItem.to, selectedItem.name);
    },
  });
  const {
    isOpen,
    highlightedIndex,
    closeMenu,
    getLabelProps,
    getInputProps,
    getMenuProps,
    getItemProps,
  } = combobox;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    const target = resolveDial(text, entries, country);
    if (target.kind === 'problem') setProblem(target.message);
    else call(target.to, target.displayName);
  }

  const open = isOpen && items.length > 0;
  return (
    <form className="dial" onSubmit={submit} aria-label="Dial">
      <label className="dial__label" {...getLabelProps()}>
        Call
      </label>
      <div className="dial__box">
        <input
          className="dial__input"
          placeholder="Name or number"
          spellCheck={false}
          data-testid="dial-input"
          {...getInputProps({
            ref: inputRef,
            onFocus: () => setSearching(true),
            // Typed text is kept in the input's own change event, not in downshift's
            // onInputValueChange: that one comes a render late, and a controlled input rendered in
            // between with the old text drops keys typed quickly and moves the caret to the end
            // (downshift-js/downshift#1108, #1148).
            onChange: (event) => {
              setText(event.target.value);
              setProblem(null);
            },
            onKeyDown: (event) => {
              // Enter with no suggestion highlighted submits what was typed (downshift would
              // otherwise keep it while its menu is open).
              if (event.key !== 'Enter' || highlightedIndex >= 0) return;
              (event.nativeEvent as { preventDownshiftDefault?: boolean }).preventDownshiftDefault =
                true;
              closeMenu();
            },
            'aria-describedby': problem ? `${id}-problem` : undefined,
            'aria-invalid': problem ? true : undefined,
          })}
        />
        <ul
          className={open ? 'dial__menu' : 'dial__menu dial__menu--closed'}
          data-testid="dial-suggestions"
          {...getMenuProps({ 'aria-label': 'Suggestions' })}
        >
          {open &&
            items.map((item, index) => (
              <li
                key={item.id}
                className={
                  index === highlightedIndex ? 'dial__item dial__item--active' : 'dial__item'
                }
                data-testid="dial-suggestion"
                data-kind={item.kind}
                {...getItemProps({ item, index })}
              >
                <span className="dial__name">{item.name}</span>
                {item.note && (
                  <span className="dial__note" data-testid="dial-note">
                    {item.note}
                  </span>
                )}
                <span className="dial__detail">{item.detail}</span>
              </li>
            ))}
        </ul>
      </div>
      {searching && <ContactsReader onChange={setContacts} />}
      <button type="submit" className="button button--accept" disabled={busy}>
        Call
      </button>
      {problem && (
        <p id={`${id}-problem`} className="dial__problem" role="alert" data-testid="dial-problem">
          {problem}
        </p>
      )}
    </form>
  );
}

/** Reads the shared contacts for the dial box (renders nothing). */
function ContactsReader({ onChange }: { onChange: (contacts: readonly Contact[]) => void }) {
  const map = useSyncMap(CONTACTS.name, SHARED_MAP);
  const items = useContainerSelector(map, selectMapItems, NO_ITEMS);
  useEffect(() => {
    onChange(items.map((item) => contactFromData(item.data)));
  }, [items, onChange]);
  return null;
}
