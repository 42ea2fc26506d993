import { ComingSoon } from '../../components/Screen';

export function Component() {
  return (
    <ComingSoon title="Settings">
      Your display name, audio devices, ringtone, do-not-disturb and notifications.
    </ComingSoon>
  );
}
