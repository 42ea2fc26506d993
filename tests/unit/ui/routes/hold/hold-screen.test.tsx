// @vitest-environment jsdom
/**
 * /hold over SDK fakes: parked calls listed longest-waiting first, timers that tick with the
 * provided clock (not with machines or real time), the empty state, and calls leaving live.
 */
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { startSyncRuntime, type SyncClientLike } from '../../../../../src/io/sync/client';
import { ActorsProvider } from '../../../../../src/ui/app/actors';
import { createAppActors } from '../../../../../src/app/page';
import { startSyncScope } from '../../../../../src/app/sync-scope';
import { ClockProvider, type Clock } from '../../../../../src/ui/components/clock';
import { Component as HoldScreen } from '../../../../../src/ui/routes/hold/HoldScreen';
import { SyncProvider } from '../../../../../src/ui/sync/SyncProvider';
import { FakeSdkClient, FakeSdkContainer } from '../../../io/sync/sdkFakes';

const scopes: { stop(): void }[] = [];
afterEach(() => {
  cleanup();
  for (const scope of scopes.splice(0)) scope.stop();
});

const T0 = Date.UTC(2026, 0, 1, 9, 0, 0);

/** A clock the test moves by hand; `every` callbacks run on `advance`. */
class ManualClock implements Clock {
  private ticks = new Set<() => void>();
  constructor(public time: number) {}
  now = () => this.time;
  every(_ms: number, tick: () => void) {
    this.ticks.add(tick);
    return () => this.ticks.delete(tick);
  }
  advance(ms: number) {
    this.time += ms;
    this.ticks.forEach((t) => t());
  }
}

const mapItem = (key: string, data: object, lastEventId: number) => ({
  key,
  data,
  revision: `r${lastEventId}`,
  lastEventId,
  dateUpdated: new Date(T0),
  dateExpires: null,
});

class FakeMap extends FakeSdkContainer {
  sid = 'MP1';
  dateExpires = null;
  constructor(
    public uniqueName: string,
    public items: ReturnType<typeof mapItem>[],
  ) {
    super();
  }
  async getItems() {
    await Promise.resolve();
    return { items: this.items, hasNextPage: false };
  }
}

class FakeClient extends FakeSdkClient {
  maps = new Map<string, FakeMap>();
  async map(options: { id?: string }) {
    await Promise.resolve();
    const name = options.id ?? '';
    let found = this.maps.get(name);
    if (!found) this.maps.set(name, (found = new FakeMap(name, [])));
    return found;
  }
}

function renderHold(holds: ReturnType<typeof mapItem>[]) {
  const client = new FakeClient();
  const map = new FakeMap('holds', holds);
  client.maps.set('holds', map);
  client.maps.set(
    'users',
    new FakeMap('users', [mapItem('pat@x.io', { name: 'Pat Parker', role: 'agent' }, 1)]),
  );
  const clock = new ManualClock(T0);
  const actors = createAppActors({
    fetch: () => Promise.reject(new Error('no server')),
    currentPath: () => '/hold',
  });
  const start = () =>
    Promise.resolve(
      startSyncRuntime({
        fetchCredentials: () => Promise.resolve({ token: 't1' }),
        createClient: () => client as unknown as SyncClientLike,
      }),
    );
  const scope = startSyncScope({ ...actors, start });
  scopes.push(scope);
  render(
    <ActorsProvider actors={actors}>
      <SyncProvider scope={scope}>
        <ClockProvider clock={clock}>
          <HoldScreen />
        </ClockProvider>
      </SyncProvider>
    </ActorsProvider>,
  );
  return { clock, map };
}

const timers = () => screen.getAllByTestId('hold-timer').map((t) => t.textContent);

describe('/hold', () => {
  it('lists parked calls longest-waiting first, with the parker and a ticking timer', async () => {
    const { clock } = renderHold([
      mapItem('CA2', { caller: 'Alan', parkedBy: 'pat@x.io', parkedAt: T0 - 5_000 }, 2),
      mapItem('CA1', { caller: 'Grace', parkedBy: 'pat@x.io', parkedAt: T0 - 65_000 }, 3),
      mapItem('CA3', { note: 'not a hold' }, 4),
    ]);
    await screen.findByTestId('hold-list');
    // Let the view subscribe to the clock (a passive effect after the list first shows).
    await act(() => Promise.resolve());
    const rows = screen.getAllByTestId('hold-row');
    expect(rows.map((r) => r.getAttribute('data-call'))).toEqual(['CA1', 'CA2']);
    expect(rows[0]!.textContent).toContain('Parked by Pat Parker');
    expect(timers()).toEqual(['1:05', '0:05']);
    act(() => clock.advance(1_000));
    expect(timers()).toEqual(['1:06', '0:06']);
    act(() => clock.advance(3_600_000));
    expect(timers()).toEqual(['1:01:06', '1:00:06']);
  });

  it('shows the empty state, then a call parked live, then empty again when it is taken', async () => {
    const { map } = renderHold([]);
    await screen.findByText('No calls on hold');
    // React may have shown the empty state before running the effects that follow the map (its
    // passive effects wait for a macrotask; on a busy machine the text is found first): let them run.
    await act(() => Promise.resolve());
    act(() => {
      map.emit('itemAdded', {
        item: mapItem('CA9', { caller: 'Ada', parkedBy: 'pat@x.io', parkedAt: T0 }, 5),
        isLocal: false,
      });
    });
    expect(screen.getByRole('button', { name: 'Pick up Ada' })).toBeTruthy();
    act(() => {
      map.emit('itemRemoved', { key: 'CA9', isLocal: false });
    });
    expect(screen.getByText('No calls on hold')).toBeTruthy();
  });
});
