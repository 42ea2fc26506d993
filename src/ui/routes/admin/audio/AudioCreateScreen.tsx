import { ComingSoon } from '../../../components/Screen';

export function Component() {
  return <ComingSoon title="Upload audio">Upload an audio file for announcements.</ComingSoon>;
}
