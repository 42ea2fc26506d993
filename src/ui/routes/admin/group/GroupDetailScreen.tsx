import { useParams } from 'react-router-dom';
import { ComingSoon } from '../../../components/Screen';

export function Component() {
  // The route's loader has already turned away malformed ids.
  const { id = '' } = useParams();
  return (
    <ComingSoon title="Ring group">
      Members, schedule, calendar, guidance and forwarding of ring group <code>{id}</code>.
    </ComingSoon>
  );
}
