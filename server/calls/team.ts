/**
 * The team as the webhooks read it: every webhook asks, and it changes rarely, so it is read again
 * at most once a second, or at once when asked `fresh` (a name not found may be someone who joined
 * within that second).
 */
import type { User } from '../identity/users';

export function createTeamReader(read: () => readonly User[], now: () => number) {
  let last = { at: -Infinity, people: [] as readonly User[], names: new Map<string, string>() };
  const team = (fresh = false): readonly User[] => {
    const at = now();
    if (fresh || at - last.at > 1000 || at < last.at) {
      const people = read();
      last = { at, people, names: new Map(people.map((u) => [u.identity, u.name])) };
    }
    return last.people;
  };
  /** A person's name, or their identity when they are not on the team. */
  const nameOf = (identity: string): string => {
    team();
    return last.names.get(identity) ?? identity;
  };
  return { team, nameOf };
}
