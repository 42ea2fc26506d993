import { ComingSoon } from '../../components/Screen';

export function Component() {
  return (
    <ComingSoon title="Users">The team directory with everyone's live availability.</ComingSoon>
  );
}
