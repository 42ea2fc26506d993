import { ComingSoon } from '../../components/Screen';

export function Component() {
  return (
    <ComingSoon title="On hold">
      Calls parked on hold right now, with a Pick up button to take them on your softphone.
    </ComingSoon>
  );
}
