import { ComingSoon } from '../../../components/Screen';

export function Component() {
  return (
    <ComingSoon title="Guidance">
      Announcements played to callers: text to speech or an audio file.
    </ComingSoon>
  );
}
