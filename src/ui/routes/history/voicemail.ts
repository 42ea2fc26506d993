/**
 * Voicemail for the signed-in person: which groups' messages they may play (the group's members and
 * admins; the server refuses anyone else), which messages they have heard (their own settings
 * document: `voicemailHeard` and `voicemailHeardBefore`), and how many of the newest calls hold a
 * message still unread for them (the count beside History in the nav).
 */
import { useSelector } from '@xstate/react';
import { useCallback, useMemo } from 'react';
import { SETTINGS_DOCUMENT, SHARED_MAP } from '../../../app/containers';
import { CALLS, GROUPS, SETTINGS } from '../../../contracts/objects';
import { groupRecord } from '../../../contracts/records/group';
import { settingsRecord } from '../../../contracts/records/settings';
import { selectUser } from '../../../machines/session.selectors';
import { selectListItems } from '../../../machines/syncList.selectors';
import { selectMapItems } from '../../../machines/syncMap.selectors';
import { selectDocumentData } from '../../../machines/syncDocument.selectors';
import type { ListItem, MapItem } from '../../../machines/syncPorts';
import { useSessionActor } from '../../app/actors';
import {
  useContainerSelector,
  useSyncDocument,
  useSyncList,
  useSyncMap,
  type DocumentActor,
} from '../../sync/useSyncContainers';
import { callOf } from './call';
import { unheard } from './row';

const NO_GROUPS: readonly MapItem[] = [];
const NO_ITEMS: readonly ListItem[] = [];

/** The calls list as /history opens it (one lease shared with the screen). */
export const CALLS_PAGE = { order: 'desc', pageSize: 50 } as const;

export interface VoicemailAccess {
  identity: string | null;
  canHear: (groupId: string) => boolean;
  /** Whether a call's message is unread for me. */
  isUnread: (call: Parameters<typeof unheard>[0]) => boolean;
  /** My settings document (where heard messages are written), undefined while it opens. */
  settings: DocumentActor | undefined;
}

export function useVoicemailAccess(): VoicemailAccess {
  const me = useSelector(useSessionActor(), selectUser);
  const identity = me?.identity ?? null;
  const admin = me?.role === 'admin';
  const groups = useSyncMap(GROUPS.name, SHARED_MAP);
  const groupItems = useContainerSelector(groups, selectMapItems, NO_GROUPS);
  // The groups whose voicemail I may hear, worked out once per change, not per row.
  const mine = useMemo(
    () =>
      new Set(
        groupItems
          .filter((g) => identity !== null && groupRecord.read(g.data).members.includes(identity))
          .map((g) => g.key),
      ),
    [groupItems, identity],
  );
  const canHear = useCallback((groupId: string) => admin || mine.has(groupId), [admin, mine]);
  const settings = useSyncDocument(SETTINGS.name(identity ?? '-'), SETTINGS_DOCUMENT);
  const data = useContainerSelector(settings, selectDocumentData, null);
  const heard = useMemo(() => settingsRecord.read(data ?? {}), [data]);
  const ready = data !== null;
  const isUnread = useCallback(
    (call: Parameters<typeof unheard>[0]) =>
      ready && call.voicemail !== null && canHear(call.group ?? '') && unheard(call, heard),
    [ready, canHear, heard],
  );
  return { identity, canHear, isUnread, settings };
}

/** How many of the newest calls hold a voicemail message unread for me. */
export function useUnreadVoicemailCount(): number {
  const { isUnread } = useVoicemailAccess();
  const calls = useSyncList(CALLS.name, CALLS_PAGE);
  const items = useContainerSelector(calls, selectListItems, NO_ITEMS);
  return useMemo(() => items.map(callOf).filter(isUnread).length, [items, isUnread]);
}
