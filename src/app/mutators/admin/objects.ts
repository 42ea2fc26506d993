/**
 * An admin write's own objects, opened through the container machines (never the SDK): a
 * document or list actor is created from the runtime's machines, started, waited until open, used
 * and stopped. Stopping closes the handle; the object stays.
 */
import { createActor, waitFor } from 'xstate';
import { syncErrors, type ContainerKind } from '../../../contracts/sync-errors';
import { askDocument, askList } from '../../../machines/syncAsk';
import { selectStatus } from '../../../machines/syncContainer.selectors';
import type { syncDocumentMachine } from '../../../machines/syncDocument.machine';
import type { SyncListInput, syncListMachine } from '../../../machines/syncList.machine';
import type { DocumentActor, ListActor } from '../core';

/** The container machines a write opens objects with (the sync runtime's `machines`). */
export interface ContainerMachines {
  document: typeof syncDocumentMachine;
  list: typeof syncListMachine;
}

type Opened = DocumentActor | ListActor;

/** Starts `actor` and resolves once its object is open; rejects with why it could not be. */
async function whenOpen<A extends Opened>(actor: A, kind: ContainerKind): Promise<A> {
  actor.start();
  const opened: Opened = actor;
  const snapshot = await waitFor(opened, (s) => selectStatus(s) !== 'opening', {
    timeout: Infinity,
  });
  if (selectStatus(snapshot) === 'ready') return actor;
  actor.stop();
  throw snapshot.context.error ?? syncErrors.containerGone(kind);
}

/** Opens (or creates) a list. */
export function openList(machines: ContainerMachines, input: SyncListInput): Promise<ListActor> {
  return whenOpen(createActor(machines.list, { input }), 'list');
}

/** Removes the object an open actor holds (the actor ends with it). */
export async function removeObject(actor: Opened): Promise<void> {
  if (actor.logic.id === 'syncList') await askList(actor as ListActor, { type: 'list.removeList' });
  else await askDocument(actor as DocumentActor, { type: 'document.removeDocument' });
}
