import { NotFound } from '../components/NotFound';

export function Component() {
  return <NotFound />;
}
