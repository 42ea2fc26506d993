import { ComingSoon } from '../../components/Screen';

export function Component() {
  return (
    <ComingSoon title="Contacts">
      Search, add and edit your team's shared contacts, and call a number with one click.
    </ComingSoon>
  );
}
