import { ComingSoon } from '../../components/Screen';

export function Component() {
  return (
    <ComingSoon title="Call history">
      The team's call log, newest first, with filters for inbound, outbound and missed calls.
    </ComingSoon>
  );
}
