import { useParams } from 'react-router-dom';
import { ComingSoon } from '../../../components/Screen';

export function Component() {
  // The route's loader has already turned away malformed ids.
  const { id = '' } = useParams();
  return (
    <ComingSoon title="Edit ring group">
      Change the name, number, members, strategy and ring timeout of ring group <code>{id}</code>.
    </ComingSoon>
  );
}
