/**
 * Typed front doors to {@link ask}: each resolves with the result type of the command sent, e.g.
 * `const item = await askList(listActor, { type: 'list.push', data })` gives a ListItem.
 */
import type { Actor } from 'xstate';
import { ask } from './syncCommand';
import type {
  DocumentCommandEvent,
  DocumentCommandResults,
  syncDocumentMachine,
} from './syncDocument.machine';
import type { ListCommandEvent, ListCommandResults, syncListMachine } from './syncList.machine';
import type { MapCommandEvent, MapCommandResults, syncMapMachine } from './syncMap.machine';
import type {
  StreamCommandEvent,
  StreamCommandResults,
  syncStreamMachine,
} from './syncStream.machine';

export function askList<C extends ListCommandEvent>(
  actor: Actor<typeof syncListMachine>,
  command: C,
): Promise<ListCommandResults[C['type']]> {
  return ask(actor, command, 'list');
}

export function askMap<C extends MapCommandEvent>(
  actor: Actor<typeof syncMapMachine>,
  command: C,
): Promise<MapCommandResults[C['type']]> {
  return ask(actor, command, 'map');
}

export function askDocument<C extends DocumentCommandEvent>(
  actor: Actor<typeof syncDocumentMachine>,
  command: C,
): Promise<DocumentCommandResults[C['type']]> {
  return ask(actor, command, 'document');
}

export function askStream<C extends StreamCommandEvent>(
  actor: Actor<typeof syncStreamMachine>,
  command: C,
): Promise<StreamCommandResults[C['type']]> {
  return ask(actor, command, 'stream');
}
