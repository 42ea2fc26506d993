// @vitest-environment jsdom
/**
 * The React sync layer over SDK fakes: hooks open containers through the workspace's Sync scope,
 * show pushed events live, share one container between the components that open it, and once the
 * last one unmounts (and the scope stops) leave no SDK listener behind (the counts return to zero).
 */
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { selectListItems, selectListStatus } from '../../../../../src/machines/syncList.selectors';
import { selectMapSize, selectMapStatus } from '../../../../../src/machines/syncMap.selectors';
import { startSyncRuntime, type SyncClientLike } from '../../../../../src/io/sync/client';
import type { ListItem } from '../../../../../src/machines/syncPorts';
import { ActorsProvider } from '../../../../../src/ui/app/actors';
import { createAppActors } from '../../../../../src/app/page';
import { startSyncScope } from '../../../../../src/app/sync-scope';
import {
  useContainerSelector,
  useSyncList,
  useSyncMap,
} from '../../../../../src/ui/sync/useSyncContainers';
import { SyncProvider } from '../../../../../src/ui/sync/SyncProvider';
import { SyncStatusBanner } from '../../../../../src/ui/sync/SyncStatusBanner';
import { FakeSdkClient, FakeSdkContainer, sdkItem } from '../../../io/sync/sdkFakes';

afterEach(cleanup);

class FakeSdkCollection extends FakeSdkContainer {
  sid = 'MP1';
  uniqueName: string;
  dateExpires = null;
  constructor(
    name: string,
    public items: object[],
  ) {
    super();
    this.uniqueName = name;
  }
  async getItems(query: { order?: string }) {
    await Promise.resolve();
    const items = query.order === 'desc' ? [...this.items].reverse() : this.items;
    return { items, hasNextPage: false };
  }
}

class FakeClient extends FakeSdkClient {
  maps = new Map<string, FakeSdkCollection>();
  lists = new Map<string, FakeSdkCollection>();
  private open(store: Map<string, FakeSdkCollection>, options: { id?: string; mode?: string }) {
    const found = store.get(options.id ?? '');
    if (options.mode === 'open_existing') {
      if (!found) throw Object.assign(new Error('not found'), { status: 404, code: 54200 });
      return found;
    }
    const created = new FakeSdkCollection(options.id ?? '', []);
    store.set(options.id ?? '', created);
    return created;
  }
  async map(options: { id?: string; mode?: string }) {
    await Promise.resolve();
    return this.open(this.maps, options);
  }
  async list(options: { id?: string; mode?: string }) {
    await Promise.resolve();
    return this.open(this.lists, options);
  }
}

function setup() {
  const client = new FakeClient();
  const contacts = new FakeSdkCollection('contacts', [sdkItem({ key: 'a', lastEventId: 1 })]);
  const calls = new FakeSdkCollection('calls', [
    sdkItem({ index: 0, lastEventId: 1 }),
    sdkItem({ index: 1, lastEventId: 2 }),
  ]);
  client.maps.set('contacts', contacts);
  client.lists.set('calls', calls);
  const actors = createAppActors({
    fetch: () => Promise.reject(new Error('no server')),
    currentPath: () => '/',
  });
  const start = () =>
    Promise.resolve(
      startSyncRuntime({
        fetchCredentials: () => Promise.resolve({ token: 't1' }),
        createClient: () => client as unknown as SyncClientLike,
      }),
    );
  // Made outside React, as the workspace makes it; the components only open containers in it.
  const scope = startSyncScope({ ...actors, start });
  return { client, contacts, calls, actors, scope };
}

const NONE: readonly ListItem[] = [];

function MapProbe() {
  const actor = useSyncMap('contacts');
  const status = useContainerSelector(actor, selectMapStatus, 'opening');
  const size = useContainerSelector(actor, selectMapSize, 0);
  return <p data-testid="map">{`${status} ${size}`}</p>;
}

function ListProbe() {
  const actor = useSyncList('calls', { order: 'desc' });
  const status = useContainerSelector(actor, selectListStatus, 'opening');
  const items = useContainerSelector(actor, selectListItems, NONE);
  return <p data-testid="list">{`${status} ${items.map((i) => i.index).join(',')}`}</p>;
}

describe('sync hooks', () => {
  it('open the map and the list, apply pushed events live, and remove every listener on unmount', async () => {
    const { client, contacts, calls, actors, scope } = setup();
    const view = render(
      <ActorsProvider actors={actors}>
        <SyncProvider scope={scope}>
          <MapProbe />
          <ListProbe />
        </SyncProvider>
      </ActorsProvider>,
    );
    expect(screen.getByTestId('map').textContent).toBe('opening 0');
    await screen.findByText('ready 1');
    await screen.findByText('ready 1,0');
    expect(contacts.totalListeners()).toBeGreaterThan(0);
    expect(calls.totalListeners()).toBeGreaterThan(0);
    expect(client.totalListeners()).toBeGreaterThan(0);

    act(() => {
      contacts.lastEventId = 5;
      contacts.emit('itemAdded', { item: sdkItem({ key: 'b', lastEventId: 5 }), isLocal: false });
      calls.lastEventId = 6;
      calls.emit('itemAdded', { item: sdkItem({ index: 2, lastEventId: 6 }), isLocal: false });
    });
    expect(screen.getByTestId('map').textContent).toBe('ready 2');
    // Newest first: the pushed call is at the top.
    expect(screen.getByTestId('list').textContent).toBe('ready 2,1,0');

    view.unmount();
    await act(() => Promise.resolve());
    expect(contacts.totalListeners()).toBe(0);
    expect(calls.totalListeners()).toBe(0);
    expect(contacts.closed).toBe(1);
    expect(calls.closed).toBe(1);
    expect(client.shutdowns).toBe(0);
    scope.stop();
    await act(() => Promise.resolve());
    expect(client.totalListeners()).toBe(0);
    expect(client.shutdowns).toBe(1);
  });

  it('share one container between the components that open it, until the last lets go', async () => {
    const { contacts, actors, scope } = setup();
    function Screen({ probes }: { probes: number }) {
      return (
        <>
          {Array.from({ length: probes }, (_, i) => (
            <MapProbe key={i} />
          ))}
        </>
      );
    }
    const tree = (probes: number) => (
      <ActorsProvider actors={actors}>
        <SyncProvider scope={scope}>
          <Screen probes={probes} />
        </SyncProvider>
      </ActorsProvider>
    );
    const view = render(tree(2));
    await waitFor(() =>
      expect(screen.getAllByTestId('map').map((p) => p.textContent)).toEqual([
        'ready 1',
        'ready 1',
      ]),
    );
    const shared = contacts.totalListeners();
    view.rerender(tree(3));
    await waitFor(() => expect(screen.getAllByTestId('map')).toHaveLength(3));
    expect(screen.getAllByTestId('map').map((p) => p.textContent)).toEqual([
      'ready 1',
      'ready 1',
      'ready 1',
    ]);
    // One subscription to the SDK map, whoever holds it.
    expect(contacts.totalListeners()).toBe(shared);
    view.rerender(tree(1));
    await act(() => Promise.resolve());
    expect(contacts.totalListeners()).toBe(shared);
    expect(contacts.closed).toBe(0);
    view.rerender(tree(0));
    await act(() => Promise.resolve());
    expect(contacts.totalListeners()).toBe(0);
    expect(contacts.closed).toBe(1);
    view.unmount();
    scope.stop();
  });

  it('stop a container when only its component unmounts, keeping the client', async () => {
    const { client, contacts, actors, scope } = setup();
    function Screen({ show }: { show: boolean }) {
      return show ? <MapProbe /> : <p>elsewhere</p>;
    }
    const view = render(
      <ActorsProvider actors={actors}>
        <SyncProvider scope={scope}>
          <Screen show />
        </SyncProvider>
      </ActorsProvider>,
    );
    await screen.findByText('ready 1');
    view.rerender(
      <ActorsProvider actors={actors}>
        <SyncProvider scope={scope}>
          <Screen show={false} />
        </SyncProvider>
      </ActorsProvider>,
    );
    await screen.findByText('elsewhere');
    expect(contacts.totalListeners()).toBe(0);
    expect(client.shutdowns).toBe(0);
    expect(client.totalListeners()).toBeGreaterThan(0);
    view.unmount();
    scope.stop();
  });

  it('say "Reconnecting…" when a live connection drops, and nothing before the first connection', async () => {
    const { client, actors, scope } = setup();
    const view = render(
      <ActorsProvider actors={actors}>
        <SyncProvider scope={scope}>
          <SyncStatusBanner />
          <MapProbe />
        </SyncProvider>
      </ActorsProvider>,
    );
    await screen.findByText('ready 1');
    expect(screen.queryByTestId('sync-banner')).toBeNull();
    const change = (state: string) =>
      act(() => {
        client.connectionState = state;
        client.emit('connectionStateChanged', state);
      });
    change('connected');
    expect(screen.queryByTestId('sync-banner')).toBeNull();
    change('connecting');
    expect(screen.getByTestId('sync-banner').textContent).toContain('Reconnecting…');
    change('connected');
    expect(screen.queryByTestId('sync-banner')).toBeNull();
    change('denied');
    expect(screen.getByTestId('sync-banner').textContent).toContain('Sign in again');
    view.unmount();
    scope.stop();
  });
});
