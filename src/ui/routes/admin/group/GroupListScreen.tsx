import { ComingSoon } from '../../../components/Screen';

export function Component() {
  return (
    <ComingSoon title="Ring groups">
      Ring groups: the numbers or extensions your team answers, and who rings.
    </ComingSoon>
  );
}
