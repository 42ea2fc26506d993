import { ComingSoon } from '../../../components/Screen';

export function Component() {
  return (
    <ComingSoon title="New ring group">
      Create a ring group with its members, strategy and ring timeout.
    </ComingSoon>
  );
}
