/** Narrow reads of a syncMap actor for `useSelector` (see syncContainer.selectors.ts). */
import type { MapItem } from './syncPorts';
import { compareKeys } from './syncContainer';
import { pagedSelectors } from './syncContainer.selectors';

export {
  selectStatus as selectMapStatus,
  selectError as selectMapError,
  selectMeta as selectMapMeta,
  selectOffline as selectMapOffline,
  selectConnection as selectMapConnection,
  selectRemoval as selectMapRemoval,
} from './syncContainer.selectors';

/** Items by key in code-unit order (reversed for desc); the same array until the view changes. */
export const {
  items: selectMapItems,
  size: selectMapSize,
  item: selectMapItem,
  hasMore: selectMapHasMore,
  loadingPage: selectMapLoadingPage,
} = pagedSelectors<string, MapItem>((a, b) => compareKeys(a.key, b.key));
