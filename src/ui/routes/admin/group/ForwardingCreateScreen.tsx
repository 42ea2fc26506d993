import { useParams } from 'react-router-dom';
import { ComingSoon } from '../../../components/Screen';

export function Component() {
  // The route's loader has already turned away malformed ids.
  const { id = '' } = useParams();
  return (
    <ComingSoon title="New forwarding rule">
      Add a forwarding rule to ring group <code>{id}</code>: when it applies and where calls go.
    </ComingSoon>
  );
}
