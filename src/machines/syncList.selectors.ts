/** Narrow reads of a syncList actor for `useSelector` (see syncContainer.selectors.ts). */
import type { JsonObject, ListItem } from './syncPorts';
import { pagedSelectors } from './syncContainer.selectors';
import type { SyncListContext } from './syncList.machine';

export type { ContainerStatus } from './syncContainer.selectors';
export {
  selectStatus as selectListStatus,
  selectError as selectListError,
  selectMeta as selectListMeta,
  selectOffline as selectListOffline,
  selectConnection as selectListConnection,
  selectRemoval as selectListRemoval,
} from './syncContainer.selectors';

/** Items by index (reversed for desc); the same array until the view changes. */
export const {
  items: selectListItems,
  size: selectListSize,
  item: selectListItem,
  hasMore: selectListHasMore,
  loadingPage: selectListLoadingPage,
} = pagedSelectors<number, ListItem>((a, b) => a.index - b.index);

export const selectListContextData = (snapshot: {
  context: Pick<SyncListContext, 'listContext'>;
}): JsonObject | null => snapshot.context.listContext.data;
