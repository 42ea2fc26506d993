/**
 * The pick-up claim against a stand-in that keeps the service's conditional-write rules (If-Match
 * on the item revision, 412 on a stale one) and the SDK's mutate loop (read, mutate, write; on 412
 * re-read and try again; a missing item is handed to the mutator as `{}`).
 */
import { describe, expect, it } from 'vitest';
import {
  CLAIM_TTL_SECONDS,
  claimHold,
  claimMutator,
  type ClaimTarget,
} from '../../../../src/ui/routes/hold/claim';
import type { JsonObject, MapItem, Mutator } from '../../../../src/sync/ports';

class Conflict extends Error {
  status = 412;
}
class Missing extends Error {
  status = 404;
  code = 54201;
}

/** One map item with a revision, as the service holds it. */
class FakeService {
  data: JsonObject | null = null;
  revision = 0;
  writes = 0;
  removes = 0;
  read(): { data: JsonObject; revision: number } | null {
    return this.data === null ? null : { data: { ...this.data }, revision: this.revision };
  }
  write(data: JsonObject, ifMatch: number): MapItem {
    if (ifMatch === -1 ? this.data !== null : this.data === null || ifMatch !== this.revision)
      throw new Conflict('precondition failed');
    this.writes += 1;
    this.revision += 1;
    this.data = data;
    return item(data, this.revision);
  }
  remove(): void {
    if (this.data === null) throw new Missing('The specified Map Item does not exist');
    this.removes += 1;
    this.data = null;
  }
}

const item = (data: JsonObject, revision: number): MapItem => ({
  key: 'CA1',
  data,
  revision: String(revision),
  lastEventId: revision,
  dateUpdated: 0,
  dateExpires: null,
});

/** A client whose mutate pauses between its read and its write until `gate` opens. */
function client(service: FakeService, gate: Promise<void> = Promise.resolve()): ClaimTarget {
  return {
    async mutate(_key: string, mutator: Mutator): Promise<MapItem> {
      let first = true;
      for (;;) {
        const current = service.read();
        if (first) await gate;
        first = false;
        const next = mutator(current ? current.data : {});
        if (next === null) return item(current?.data ?? {}, current?.revision ?? -1);
        try {
          return service.write(next, current ? current.revision : -1);
        } catch (e) {
          if (!(e instanceof Conflict)) throw e;
        }
      }
    },
    remove() {
      service.remove();
      return Promise.resolve();
    },
  };
}

const parked = { caller: '+15550100', parkedBy: 'ada@example.com', parkedAt: 1 };

describe('claimMutator', () => {
  it('claims an unclaimed hold, keeping its fields', () => {
    expect(claimMutator('bob@x.io')(parked)).toEqual({ ...parked, claimedBy: 'bob@x.io' });
  });
  it('writes nothing for a hold claimed by someone else, or an item that is gone ({})', () => {
    expect(claimMutator('bob@x.io')({ ...parked, claimedBy: 'cy@x.io' })).toBeNull();
    expect(claimMutator('bob@x.io')({})).toBeNull();
  });
});

describe('claimHold', () => {
  it('wins an unclaimed hold (claimed with a ttl) and removes it', async () => {
    const service = new FakeService();
    service.data = parked;
    const target = client(service);
    const ttls: Array<number | undefined> = [];
    const mutate = target.mutate.bind(target);
    target.mutate = (key, mutator, metadata) => {
      ttls.push(metadata?.ttl);
      return mutate(key, mutator);
    };
    expect(await claimHold(target, 'CA1', 'bob@x.io')).toBe('won');
    expect(ttls).toEqual([CLAIM_TTL_SECONDS]);
    expect(service.data).toBeNull();
    expect(service.removes).toBe(1);
  });

  it('two clicks on the same revision: exactly one wins, the other is told it was taken', async () => {
    const service = new FakeService();
    service.data = parked;
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const both = Promise.all([
      claimHold(client(service, gate), 'CA1', 'bob@x.io'),
      claimHold(client(service, gate), 'CA1', 'cy@x.io'),
    ]);
    open();
    const outcomes = await both;
    expect(outcomes.sort()).toEqual(['taken', 'won']);
    expect(service.writes).toBe(1);
    expect(service.removes).toBe(1);
    expect(service.data).toBeNull();
  });

  it('a click after the winner removed the item is taken, and never re-creates it', async () => {
    const service = new FakeService();
    expect(await claimHold(client(service), 'CA1', 'cy@x.io')).toBe('taken');
    expect(service.data).toBeNull();
    expect(service.writes).toBe(0);
  });

  it('a hold already claimed by me (an interrupted pick-up) is won again and removed', async () => {
    const service = new FakeService();
    service.data = { ...parked, claimedBy: 'bob@x.io' };
    expect(await claimHold(client(service), 'CA1', 'bob@x.io')).toBe('won');
    expect(service.data).toBeNull();
  });

  it('passes on failures that are not about the item being gone', async () => {
    const broken: ClaimTarget = {
      mutate: () => Promise.reject(Object.assign(new Error('socket closed'), { status: 0 })),
      remove: () => Promise.resolve(),
    };
    await expect(claimHold(broken, 'CA1', 'bob@x.io')).rejects.toThrow('socket closed');
  });

  it('still wins when the removal finds the item already gone', async () => {
    const target: ClaimTarget = {
      mutate: (_k, m) => Promise.resolve(item(m(parked)!, 1)),
      remove: () => Promise.reject(new Missing('gone')),
    };
    expect(await claimHold(target, 'CA1', 'bob@x.io')).toBe('won');
  });
});
