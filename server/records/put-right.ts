/**
 * Records put right: a browser writes some objects through Sync itself (contacts, its person's
 * settings, a ring group's hours, holidays and forwarding rules, the team's settings), and Sync, as
 * Twilio's does, stores any JSON a permitted identity sends. The app's screens and mutators check
 * every write against its record (src/contracts/records) before sending it; a write made around them
 * (a script, the browser's developer tools) that breaks its record is put right here, from Sync's
 * webhooks (https://www.twilio.com/docs/sync/webhooks), on every backend:
 *
 * - the item or document is read again, and only if it still holds what the event said (nobody has
 *   changed it since) is it changed, conditionally on the revision read (If-Match);
 * - it becomes what every reader reads it as anyway (the record's tolerant read: a field of the wrong
 *   shape takes its fallback) when that passes the record; an item that does not even then (a
 *   contact without a name) is removed;
 * - each is logged, naming the object, the writer and what was wrong.
 *
 * Writes of the server's own (Identity `system`, no EndpointId) are not looked at: they are typed
 * against the records. This needs the Sync service's webhooks to reach this server
 * (server/routing/sync-events.ts); docs/operations.md says what stands in when they do not.
 */
import { lookUpObject } from '../../src/contracts/objects';
import type { JsonObject } from '../../src/contracts/record';
import type { SyncRest } from '../twilio/sync-rest';
import type { SyncEvent } from '../routing/sync-events';
import { writeProblem } from '../identity/policy';

type Rest = Pick<
  SyncRest,
  | 'getMapItem'
  | 'updateMapItemIf'
  | 'removeMapItem'
  | 'getListItem'
  | 'updateListItemIf'
  | 'removeListItem'
  | 'getDocument'
  | 'updateDocumentIf'
>;

/** What a write was, for the keeper: which object, which item, what it holds, who wrote it. */
interface Written {
  kind: 'map' | 'list' | 'document';
  name: string;
  /** The map item's key or the list item's index; null for a document. */
  item: string | number | null;
  data: JsonObject;
  by: string;
}

/** The write an event reports, when it is a browser's item or document data; null otherwise. */
export function writtenBy(event: SyncEvent): Written | null {
  const { type, params, data } = event;
  if (data === null || (params.Identity === 'system' && params.EndpointId === undefined))
    return null;
  const by = params.Identity ?? 'someone';
  if (type === 'map_item_added' || type === 'map_item_updated') {
    const name = params.MapUniqueName;
    const key = params.ItemKey;
    return name && key ? { kind: 'map', name, item: key, data, by } : null;
  }
  if (type === 'list_item_added' || type === 'list_item_updated') {
    const name = params.ListUniqueName;
    const index = Number(params.ItemIndex);
    return name && Number.isInteger(index) && index >= 0
      ? { kind: 'list', name, item: index, data, by }
      : null;
  }
  if (type === 'document_created' || type === 'document_updated') {
    const name = params.DocumentUniqueName;
    return name ? { kind: 'document', name, item: null, data, by } : null;
  }
  return null;
}

/**
 * Puts right each browser write that breaks its record (the module comment says how); resolves
 * once it has been looked at. Writes that pass, and objects the catalogue does not name, are left.
 */
export function createRecordKeeper(deps: {
  rest: Rest;
  log: (message: string) => void;
}): (event: SyncEvent) => Promise<void> {
  const { rest, log } = deps;
  const same = (a: JsonObject, b: JsonObject): boolean => JSON.stringify(a) === JSON.stringify(b);

  async function putRight(w: Written, problem: string): Promise<void> {
    const found = lookUpObject(w.name, w.kind);
    if (!found) return;
    const record = found.object.record;
    const read = record.read(w.data) as JsonObject;
    const fixed = record.check(read).ok ? read : null;
    const where = `${w.name}${w.item === null ? '' : `/${String(w.item)}`}`;
    let done: 'written' | 'changed' | 'gone' | 'removed';
    if (w.kind === 'document') {
      const now = await rest.getDocument(w.name);
      if (!now || !same(now.data, w.data)) return;
      done = await rest.updateDocumentIf(
        w.name,
        fixed ?? (record.read({}) as JsonObject),
        now.revision,
      );
    } else if (w.kind === 'map') {
      const key = String(w.item);
      const now = await rest.getMapItem(w.name, key);
      if (!now || !same(now.data, w.data)) return;
      if (fixed) done = await rest.updateMapItemIf(w.name, key, fixed, now.revision);
      else {
        await rest.removeMapItem(w.name, key);
        done = 'removed';
      }
    } else {
      const index = Number(w.item);
      const now = await rest.getListItem(w.name, index);
      if (!now || !same(now.data, w.data)) return;
      if (fixed) done = await rest.updateListItemIf(w.name, index, fixed, now.revision);
      else {
        await rest.removeListItem(w.name, index);
        done = 'removed';
      }
    }
    if (done === 'written' || done === 'removed')
      log(
        `records: ${where}, written by ${w.by}, broke its record (${problem}): ${done === 'removed' ? 'removed' : 'put right'}`,
      );
  }

  return async (event) => {
    const w = writtenBy(event);
    if (!w) return;
    const problem = writeProblem({ kind: w.kind, name: w.name }, w.data);
    if (problem === null) return;
    try {
      await putRight(w, problem);
    } catch (err) {
      log(
        `records: ${w.name} broke its record (${problem}) and could not be put right now: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  };
}
