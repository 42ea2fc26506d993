import { describe, expect, it } from 'vitest';
import type { User } from '../../../../server/identity/users';
import { createTeamReader } from '../../../../server/calls/team';

const person = (identity: string, name: string) => ({ identity, name }) as User;

describe("the webhooks' team", () => {
  it('is read at most once a second, and at once when asked fresh (someone who just joined)', () => {
    let people = [person('ann@x.io', 'Ann')];
    let reads = 0;
    const clock = { now: 1_000 };
    const { team, nameOf } = createTeamReader(
      () => (reads++, people),
      () => clock.now,
    );
    expect(team().map((u) => u.name)).toEqual(['Ann']);
    people = [...people, person('dan@x.io', 'Dan')];
    clock.now += 500;
    expect(nameOf('dan@x.io')).toBe('dan@x.io'); // within the second: the copy read before
    expect(team(true).map((u) => u.name)).toEqual(['Ann', 'Dan']);
    expect(nameOf('dan@x.io')).toBe('Dan');
    expect(reads).toBe(2);
    clock.now += 1_001;
    team();
    expect(reads).toBe(3);
  });
});
