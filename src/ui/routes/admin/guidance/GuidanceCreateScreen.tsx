import { ComingSoon } from '../../../components/Screen';

export function Component() {
  return (
    <ComingSoon title="New guidance">Create an announcement from text or an audio file.</ComingSoon>
  );
}
