import { ComingSoon } from '../../../components/Screen';

export function Component() {
  return (
    <ComingSoon title="Audio files">
      Audio files for announcements, with a play preview, duration and size.
    </ComingSoon>
  );
}
