/** Narrow reads of a syncStream actor for `useSelector` (see syncContainer.selectors.ts). */
import type { StreamMessage } from './syncPorts';
import type { SyncStreamContext } from './syncStream.machine';

export {
  selectStatus as selectStreamStatus,
  selectError as selectStreamError,
  selectOfflineTag as selectStreamOffline,
} from './syncContainer.selectors';

type StreamSnapshot = { context: Pick<SyncStreamContext, 'messages'> };

export const selectStreamMessages = (snapshot: StreamSnapshot): readonly StreamMessage[] =>
  snapshot.context.messages;

export const selectStreamLastMessage = (snapshot: StreamSnapshot): StreamMessage | undefined =>
  snapshot.context.messages.at(-1);
