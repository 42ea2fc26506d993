/**
 * The signed-in workspace without React, over SDK fakes and a fake phone: the shared containers
 * opened once, presence on its map, the phone's audio choices from the settings document, sign-out
 * (hang up, withdraw) and the one way back after a sign-out that did not happen, and a clean stop.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, createMachine, type AnyActorRef } from 'xstate';
import { createAppActors, startAppActors, type AppActors } from '../../../src/app/page';
import type { Workspace } from '../../../src/app/workspace';
import { startSyncRuntime, type SyncClientLike } from '../../../src/io/sync/client';
import type { VoiceRuntime } from '../../../src/io/voice/client';
import { FakeSdkClient, FakeSdkContainer } from '../io/sync/sdkFakes';
import type { SessionUser } from '../../../src/contracts/api-session';
import type { AudioPreferences } from '../../../src/io/voice/audio';

const ada: SessionUser = {
  identity: 'ada@x.io',
  name: 'Ada',
  email: 'ada@x.io',
  role: 'agent',
  picture: null,
  extension: null,
};

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
/** Waits for `check`, up to 10 s of a busy machine's time (a full CI run shares two cores). */
async function until(check: () => boolean, what: string): Promise<void> {
  const give = Date.now() + 10_000;
  while (Date.now() < give) {
    if (check()) return;
    await tick();
  }
  throw new Error(`never: ${what}`);
}

interface SdkItem {
  key: string;
  data: object;
  revision: string;
  lastEventId: number;
  dateUpdated: Date;
  dateExpires: null;
}

class FakeMap extends FakeSdkContainer {
  sid = 'MP1';
  dateExpires = null;
  items = new Map<string, SdkItem>();
  writes: { op: string; key: string; data?: object; ttl?: number }[] = [];
  constructor(public uniqueName: string) {
    super();
  }
  private item(key: string, data: object): SdkItem {
    this.lastEventId += 1;
    const item = {
      key,
      data,
      revision: `r${this.lastEventId}`,
      lastEventId: this.lastEventId,
      dateUpdated: new Date(1_000),
      dateExpires: null,
    };
    this.items.set(key, item);
    return item;
  }
  async getItems() {
    await Promise.resolve();
    return { items: [...this.items.values()], hasNextPage: false };
  }
  async set(key: string, data: object, metadata?: { ttl?: number }) {
    await Promise.resolve();
    this.writes.push({ op: 'set', key, data, ...(metadata?.ttl ? { ttl: metadata.ttl } : {}) });
    const item = this.item(key, data);
    this.emit('itemUpdated', { item, isLocal: true });
    return item;
  }
  /** As the SDK's: the mutator gets the item's data ({} when there is none); the result is set. */
  async mutate(key: string, mutator: (data: object) => object | null, metadata?: { ttl?: number }) {
    await Promise.resolve();
    const current = this.items.get(key);
    const data = mutator(structuredClone(current?.data ?? {}));
    if (data === null) return current;
    this.writes.push({ op: 'mutate', key, data, ...(metadata?.ttl ? { ttl: metadata.ttl } : {}) });
    const item = this.item(key, data);
    this.emit('itemUpdated', { item, isLocal: true });
    return item;
  }
  async setItemTtl(key: string, ttl: number) {
    await Promise.resolve();
    this.writes.push({ op: 'setItemTtl', key, ttl });
  }
  async remove(key: string) {
    await Promise.resolve();
    this.writes.push({ op: 'remove', key });
    this.items.delete(key);
    this.lastEventId += 1;
    this.emit('itemRemoved', { key, isLocal: true });
  }
}

class FakeDoc extends FakeSdkContainer {
  sid = 'ET1';
  dateExpires = null;
  constructor(
    public uniqueName: string,
    public data: object,
  ) {
    super();
  }
  push(data: object) {
    const previousData = this.data;
    this.data = data;
    this.lastEventId += 1;
    this.revision = String(this.lastEventId);
    this.emit('updated', { data, previousData, isLocal: false });
  }
}

class FakeClient extends FakeSdkClient {
  maps = new Map<string, FakeMap>();
  docs = new Map<string, FakeDoc>();
  opened: string[] = [];
  async map(options: { id?: string }) {
    await Promise.resolve();
    const name = options.id ?? '';
    this.opened.push(`map ${name}`);
    let found = this.maps.get(name);
    if (!found) this.maps.set(name, (found = new FakeMap(name)));
    return found;
  }
  async document(options: { id?: string; data?: object }) {
    await Promise.resolve();
    const name = options.id ?? '';
    this.opened.push(`document ${name}`);
    let found = this.docs.get(name);
    if (!found) this.docs.set(name, (found = new FakeDoc(name, options.data ?? {})));
    return found;
  }
}

/** A phone that is there at once and signs out when asked. */
class FakePhones {
  started: FakePhone[] = [];
  start = () => {
    const phone = new FakePhone();
    this.started.push(phone);
    return Promise.resolve(phone.runtime);
  };
}

class FakePhone {
  applied: AudioPreferences[] = [];
  stopped = false;
  device = createActor(
    createMachine({
      initial: 'registered',
      states: {
        registered: { on: { 'device.signOut': 'signedOut' } },
        signedOut: { type: 'final' },
      },
    }),
  ).start();
  runtime = {
    device: this.device as unknown as AnyActorRef,
    audio: {
      apply: (prefs: AudioPreferences) => {
        this.applied.push(prefs);
        return Promise.resolve([]);
      },
    },
    leave: () => {
      this.device.send({ type: 'device.signOut' });
      return Promise.resolve();
    },
    stop: () => {
      this.stopped = true;
    },
  } as unknown as VoiceRuntime;
  get signedOut() {
    return this.device.getSnapshot().status === 'done';
  }
}

const json = (body: unknown) =>
  new Response(JSON.stringify(body), {
    status: 200,
    headers: { 'Content-Type': 'application/json' },
  });

const pages: AppActors[] = [];
afterEach(() => {
  for (const page of pages.splice(0)) {
    page.workspace.current()?.stop();
    page.session.stop();
  }
});

/**
 * The page as main.tsx makes it, over fakes: Ada's session restores, and the page root starts her
 * workspace. `logout` answers the sign-out (it sees what was done before it was asked).
 */
async function setup(logout: () => Response = () => new Response(null, { status: 204 })) {
  const client = new FakeClient();
  const phones = new FakePhones();
  /** The presence writes asked of the server (it writes the person's own item). */
  const writes: { op: string; body?: unknown }[] = [];
  const actors: AppActors = createAppActors({
    fetch: (input, init) => {
      const key = `${init?.method ?? 'GET'} ${typeof input === 'string' ? input : ''}`;
      if (key === 'GET /api/session') return Promise.resolve(json({ user: ada }));
      if (key === 'GET /api/presence/settings')
        return Promise.resolve(json({ ttlSeconds: 60, heartbeatSeconds: 20 }));
      if (key === 'PUT /api/presence' || key === 'DELETE /api/presence') {
        writes.push({
          op: key,
          ...(typeof init?.body === 'string' ? { body: JSON.parse(init.body) as unknown } : {}),
        });
        return Promise.resolve(new Response(null, { status: 204 }));
      }
      if (key === 'POST /api/session/logout') return Promise.resolve(logout());
      return Promise.resolve(new Response(null, { status: 404 }));
    },
    currentPath: () => '/',
    workspace: {
      startSync: () =>
        Promise.resolve(
          startSyncRuntime({
            fetchCredentials: () => Promise.resolve({ token: 't1' }),
            createClient: () => client as unknown as SyncClientLike,
          }),
        ),
      startVoice: phones.start,
      doc: null,
    },
  });
  pages.push(actors);
  startAppActors(actors);
  await until(() => actors.workspace.current() !== null, 'the workspace starts');
  const workspace = actors.workspace.current() as Workspace;
  const presence = () => ({ writes });
  await until(() => writes.length === 1, 'the presence item is written');
  return { client, phones, actors, workspace, presence };
}

describe('the signed-in workspace', () => {
  it('is started by the page for the signed-in person, with the shared containers opened once', async () => {
    const { client, workspace, presence } = await setup();
    expect(workspace.user.identity).toBe('ada@x.io');
    expect([...client.opened].sort()).toEqual([
      'document settings:ada@x.io',
      'document team-settings',
      'map groups',
      'map holds',
      'map presence',
      'map users',
    ]);
    expect(presence().writes[0]).toEqual({
      op: 'PUT /api/presence',
      body: { status: 'available' },
    });
    const actor = workspace.getSnapshot().presence.actor;
    expect(actor?.system.get('presenceHeartbeat')).toBe(actor);
    // A screen opening a shared map gets the workspace's actor, not a second subscription.
    const lease = workspace.sync.open('map', 'users', { pageSize: 100, loadAll: true });
    await tick();
    expect(client.opened.filter((o) => o === 'map users')).toHaveLength(1);
    lease?.release();
  });

  it('keeps the phone on the audio choices of the person’s settings as they change', async () => {
    const { client, phones } = await setup();
    await until(() => phones.started[0]?.applied.length === 1, 'the settings are applied');
    expect(phones.started[0]?.applied[0]).toEqual({
      microphoneId: null,
      speakerId: null,
      ringtoneId: null,
      ringtoneVolume: 80,
    });
    client.docs.get('settings:ada@x.io')?.push({ ringtoneVolume: 30, speakerId: 'spk-2' });
    await until(() => phones.started[0]?.applied.length === 2, 'the change is applied');
    expect(phones.started[0]?.applied[1]).toMatchObject({ speakerId: 'spk-2', ringtoneVolume: 30 });
  });

  it('signs out after hanging up and withdrawing presence, then stops everything', async () => {
    let seen: { phoneSignedOut: boolean; lastWrite: unknown } | null = null;
    const context = await setup(() => {
      seen = {
        phoneSignedOut: context.phones.started[0]?.signedOut ?? false,
        lastWrite: context.presence().writes.at(-1),
      };
      return new Response(null, { status: 204 });
    });
    const { actors, client, phones } = context;
    actors.session.send({ type: 'session.signOut' });
    await until(() => actors.session.getSnapshot().matches('signedOut'), 'signed out');
    expect(seen).toEqual({
      phoneSignedOut: true,
      lastWrite: { op: 'DELETE /api/presence' },
    });
    expect(actors.workspace.current()).toBeNull();
    await tick();
    expect(phones.started[0]?.stopped).toBe(true);
    for (const map of client.maps.values()) expect(map.totalListeners()).toBe(0);
    for (const doc of client.docs.values()) expect(doc.totalListeners()).toBe(0);
    expect(client.totalListeners()).toBe(0);
    expect(client.shutdowns).toBe(1);
  });

  it('comes back after a refused sign-out: the phone and the presence heartbeat start again', async () => {
    const refused = () =>
      new Response(JSON.stringify({ error: { code: 'nope', message: 'Not now.' } }), {
        status: 500,
        headers: { 'Content-Type': 'application/json' },
      });
    const { actors, phones, workspace, presence } = await setup(refused);
    const first = workspace.getSnapshot().presence.actor;
    actors.session.send({ type: 'session.signOut' });
    await until(() => actors.session.getSnapshot().matches('signedIn'), 'still signed in');
    expect(actors.workspace.current()).toBe(workspace);
    expect(phones.started[0]?.signedOut).toBe(true);
    await until(() => phones.started.length === 2, 'the phone starts again');
    await until(() => presence().writes.length === 3, 'presence is written again');
    expect(
      presence()
        .writes.slice(1)
        .map((w) => w.op),
    ).toEqual(['DELETE /api/presence', 'PUT /api/presence']);
    expect(workspace.getSnapshot().presence.actor).not.toBe(first);
    expect(phones.started[0]?.stopped).toBe(true);
    expect(workspace.getSnapshot().phone.runtime).toBe(phones.started[1]?.runtime);
  });
});
