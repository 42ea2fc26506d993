import { useParams } from 'react-router-dom';
import { ComingSoon } from '../../../components/Screen';

export function Component() {
  // The route's loader has already turned away malformed ids.
  const { id = '' } = useParams();
  return (
    <ComingSoon title="Group guidance">
      Choose the announcements ring group <code>{id}</code> plays when open, closed, on a holiday
      and on hold.
    </ComingSoon>
  );
}
