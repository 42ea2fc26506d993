import { useParams } from 'react-router-dom';
import { ComingSoon } from '../../../components/Screen';

export function Component() {
  // The route's loader has already turned away malformed ids.
  const { id = '' } = useParams();
  return (
    <ComingSoon title="Edit guidance">
      Change announcement <code>{id}</code>.
    </ComingSoon>
  );
}
