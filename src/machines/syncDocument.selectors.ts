/** Narrow reads of a syncDocument actor for `useSelector` (see syncContainer.selectors.ts). */
import type { JsonObject } from './syncPorts';
import type { SyncDocumentContext } from './syncDocument.machine';

export {
  selectStatus as selectDocumentStatus,
  selectError as selectDocumentError,
  selectMeta as selectDocumentMeta,
  selectOfflineTag as selectDocumentOffline,
} from './syncContainer.selectors';

export const selectDocumentData = (snapshot: {
  context: Pick<SyncDocumentContext, 'data'>;
}): JsonObject | null => snapshot.context.data;
