/**
 * The phone's composition (src/voice/client.ts) over a fake Voice SDK: what reaches the machines
 * when the SDK emits its events in the orders the real SDK uses.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { selectCallEndReason } from '../../../../src/machines/call.selectors';
import { selectCalls, selectDeviceStatus } from '../../../../src/machines/device.selectors';

type Listener = (...args: unknown[]) => void;

class Emitter {
  private listeners = new Map<string, Set<Listener>>();
  on(name: string, listener: Listener) {
    if (!this.listeners.has(name)) this.listeners.set(name, new Set());
    this.listeners.get(name)!.add(listener);
    return this;
  }
  off(name: string, listener: Listener) {
    this.listeners.get(name)?.delete(listener);
    return this;
  }
  emit(name: string, ...args: unknown[]) {
    for (const listener of [...(this.listeners.get(name) ?? [])]) listener(...args);
  }
}

class FakeCall extends Emitter {
  parameters: Record<string, string> = {};
  customParameters = new Map<string, string>();
  accept() {}
  reject() {}
  ignore() {}
  disconnect() {}
  mute() {}
  sendDigits() {}
}

/** Output devices as the SDK's AudioHelper sees them while it is still listing: none, not even 'default'. */
const outputs = (present: string[]) => ({
  set: (id: string) =>
    present.includes(id)
      ? Promise.resolve()
      : Promise.reject(new Error(`Devices not found: ${id}`)),
});

class FakeDevice extends Emitter {
  static last: FakeDevice | null = null;
  isBusy = false;
  audio = {
    isOutputSelectionSupported: true,
    setInputDevice: (id: string) =>
      id === 'mic-1' ? Promise.resolve() : Promise.reject(new Error('not found')),
    unsetInputDevice: () => Promise.reject(new Error('still listing devices')),
    speakerDevices: outputs(['speaker-1']),
    ringtoneDevices: outputs(['speaker-1']),
  };
  state = 'unregistered';
  placed: FakeCall[] = [];
  constructor() {
    super();
    FakeDevice.last = this;
  }
  register() {
    this.state = 'registered';
    queueMicrotask(() => this.emit('registered'));
    return Promise.resolve();
  }
  unregister() {
    // The service confirms only a registration it has; anything else is never answered.
    if (this.state !== 'registered') return new Promise<void>(() => undefined);
    this.state = 'unregistered';
    queueMicrotask(() => this.emit('unregistered'));
    return Promise.resolve();
  }
  tokens: string[] = [];
  destroyed = false;
  /** No socket open: the real SDK keeps a new token and reports 31009 in the same call. */
  offline = false;
  updateToken(token: string) {
    this.tokens.push(token);
    if (this.offline) this.emit('error', { code: 31009, message: 'No transport available' });
  }
  destroy() {
    this.destroyed = true;
  }
  connect() {
    const call = new FakeCall();
    this.placed.push(call);
    return Promise.resolve(call);
  }
}

vi.mock('../../../../src/io/voice/sdk', () => ({
  loadVoiceSdk: () => Promise.resolve({ Device: FakeDevice, Call: FakeCall }),
}));

const { startVoiceRuntime } = await import('../../../../src/io/voice/client');
const { heldEvent } = await import('../../../../src/io/voice/server-messages');

const running: Array<{ stop(): void }> = [];
afterEach(() => {
  for (const r of running.splice(0)) r.stop();
});

/** What `GET /api/voice/registration` answers next: registered, not, or a failed request. */
let serviceSays: boolean | Error = true;

async function registeredPhone(extra: Partial<Parameters<typeof startVoiceRuntime>[0]> = {}) {
  const runtime = await startVoiceRuntime({
    identity: 'ann',
    fetchCredentials: () =>
      Promise.resolve({
        identity: 'ann',
        token: 'token',
        ttlSeconds: 3600,
        device: {},
        signalling: { url: 'wss://example.test/signal' },
      }),
    fetchRegistered: () =>
      serviceSays instanceof Error ? Promise.reject(serviceSays) : Promise.resolve(serviceSays),
    now: () => 1_000,
    locks: null,
    openChannel: () => null,
    ...extra,
  });
  running.push(runtime);
  await vi.waitFor(() =>
    expect(selectDeviceStatus(runtime.device.getSnapshot())).toBe('registered'),
  );
  return runtime;
}

async function placedCall(runtime: Awaited<ReturnType<typeof registeredPhone>>) {
  runtime.dial('client:bob');
  await vi.waitFor(() => expect(FakeDevice.last?.placed.length).toBe(1));
  await Promise.resolve();
  const [id, actor] = Object.entries(selectCalls(runtime.device.getSnapshot()))[0]!;
  return { id, actor, sdk: FakeDevice.last!.placed[0]! };
}

describe('voice runtime: SDK call events reach the call machine in an order it can read', () => {
  it('a call the SDK gives up on locally (microphone refused) ends for the microphone, not "no answer"', async () => {
    // The SDK closes the call first (`disconnect`) and only then, in the same turn, emits the
    // `error` that says why (Call#accept when getUserMedia is refused; seen in Chromium).
    const { actor, sdk } = await placedCall(await registeredPhone());
    sdk.emit('disconnect', sdk);
    sdk.emit('error', { code: 31401, message: 'Permission denied' });
    await vi.waitFor(() => expect(actor.getSnapshot().status).toBe('done'));
    expect(selectCallEndReason(actor.getSnapshot())).toBe('microphoneBlocked');
  });

  it('a call the service ends with an error (error, then disconnect) keeps the service reason', async () => {
    const { actor, sdk } = await placedCall(await registeredPhone());
    sdk.emit('ringing');
    sdk.emit('error', { code: 31486, message: 'BusyHere (31486): Bob is on another call.' });
    sdk.emit('disconnect', sdk);
    await vi.waitFor(() => expect(actor.getSnapshot().status).toBe('done'));
    expect(selectCallEndReason(actor.getSnapshot())).toBe('busy');
    expect(actor.getSnapshot().context.error?.message).toBe('Bob is on another call.');
  });

  it('a plain disconnect of an open call is "they hung up"', async () => {
    const { actor, sdk } = await placedCall(await registeredPhone());
    sdk.emit('accept', sdk);
    await vi.waitFor(() => expect(actor.getSnapshot().matches('open')).toBe(true));
    sdk.emit('disconnect', sdk);
    await vi.waitFor(() => expect(actor.getSnapshot().status).toBe('done'));
    expect(selectCallEndReason(actor.getSnapshot())).toBe('hungUpByThem');
  });
});

describe("voice runtime: the SDK's quality events", () => {
  it('warnings reach the call machine; samples are summarised and reported once when the call ends', async () => {
    const reportQuality = vi.fn(() => Promise.resolve());
    const { actor, sdk } = await placedCall(await registeredPhone({ reportQuality }));
    sdk.parameters.CallSid = 'CA42';
    sdk.emit('accept', sdk);
    sdk.emit('warning', 'high-packet-loss', { threshold: { name: 'max' } });
    sdk.emit('warning', 'high-rtt', null);
    expect(actor.getSnapshot().context.warnings).toEqual(['high-packet-loss', 'high-rtt']);
    sdk.emit('warning-cleared', 'high-rtt');
    expect(actor.getSnapshot().context.warnings).toEqual(['high-packet-loss']);
    for (const lost of [0, 10, 10])
      sdk.emit('sample', {
        mos: lost ? 3.2 : 4.4,
        jitter: 4,
        rtt: 20,
        packetsLost: lost,
        packetsReceived: 50 - lost,
        codecName: 'pcmu',
        totals: {},
      });
    sdk.emit('disconnect', sdk);
    await vi.waitFor(() => expect(actor.getSnapshot().status).toBe('done'));
    expect(reportQuality).toHaveBeenCalledTimes(1);
    expect(reportQuality).toHaveBeenCalledWith('CA42', {
      samples: 3,
      mosMin: 3.2,
      mosAvg: 3.6,
      lossPercent: 13.3,
      jitterAvgMs: 4,
      jitterP95Ms: 4,
      rttAvgMs: 20,
      codec: 'pcmu',
      warnings: ['high-packet-loss', 'high-rtt'],
    });
  });

  it('a call that never had audio reports nothing', async () => {
    const reportQuality = vi.fn(() => Promise.resolve());
    const { actor, sdk } = await placedCall(await registeredPhone({ reportQuality }));
    sdk.parameters.CallSid = 'CA43';
    sdk.emit('disconnect', sdk);
    await vi.waitFor(() => expect(actor.getSnapshot().status).toBe('done'));
    expect(reportQuality).not.toHaveBeenCalled();
  });
});

describe('voice runtime: a registration lost in the background, and leaving', () => {
  afterEach(() => {
    serviceSays = true;
  });

  it('back in the foreground, a Device the service still has stays as it is', async () => {
    const runtime = await registeredPhone();
    const first = FakeDevice.last!;
    runtime.device.send({ type: 'page.visible' });
    await vi.waitFor(() =>
      expect(runtime.device.getSnapshot().matches({ owner: { registration: 'registered' } })).toBe(
        true,
      ),
    );
    expect(FakeDevice.last).toBe(first);
    expect(first.destroyed).toBe(false);
  });

  it('a Device the service lost (while the SDK thinks it is registered) is replaced by a new one', async () => {
    const runtime = await registeredPhone();
    const first = FakeDevice.last!;
    serviceSays = false;
    runtime.device.send({ type: 'page.visible' });
    await vi.waitFor(() => expect(FakeDevice.last).not.toBe(first));
    expect(first.destroyed).toBe(true);
    await vi.waitFor(() =>
      expect(selectDeviceStatus(runtime.device.getSnapshot())).toBe('registered'),
    );
    expect(FakeDevice.last!.state).toBe('registered');
  });

  it('when the service cannot be asked, the registered Device keeps its calls and gets a new token', async () => {
    const runtime = await registeredPhone();
    const first = FakeDevice.last!;
    serviceSays = new Error('offline');
    runtime.device.send({ type: 'page.visible' });
    await vi.waitFor(() => expect(first.tokens).toEqual(['token']));
    await vi.waitFor(() =>
      expect(selectDeviceStatus(runtime.device.getSnapshot())).toBe('registered'),
    );
    expect(FakeDevice.last).toBe(first);
    expect(first.destroyed).toBe(false);
  });

  it('Try again after the token expired registers with a new Device, not the one retrying with the old token', async () => {
    const runtime = await registeredPhone();
    const first = FakeDevice.last!;
    first.state = 'unregistered';
    first.emit('error', { code: 20104, message: 'AccessTokenExpired' });
    await vi.waitFor(() => expect(selectDeviceStatus(runtime.device.getSnapshot())).toBe('error'));
    runtime.device.send({ type: 'device.retry' });
    await vi.waitFor(() =>
      expect(selectDeviceStatus(runtime.device.getSnapshot())).toBe('registered'),
    );
    expect(first.destroyed).toBe(true);
    expect(FakeDevice.last).not.toBe(first);
    // The old Device's late events reach nobody.
    first.emit('error', { code: 20104, message: 'AccessTokenExpired' });
    await Promise.resolve();
    expect(selectDeviceStatus(runtime.device.getSnapshot())).toBe('registered');
  });

  it('a token renewed between sockets is kept without the SDK\'s "no transport" error reaching the phone', async () => {
    const runtime = await registeredPhone();
    const first = FakeDevice.last!;
    first.offline = true;
    runtime.device.send({ type: 'device.tokenWillExpire' });
    await vi.waitFor(() => expect(first.tokens).toEqual(['token']));
    await vi.waitFor(() =>
      expect(runtime.device.getSnapshot().matches({ owner: { token: 'valid' } })).toBe(true),
    );
    expect(runtime.device.getSnapshot().context.lastError).toBeNull();
    // The same error at any other moment is the SDK's to report.
    first.emit('error', { code: 31009, message: 'No transport available' });
    expect(runtime.device.getSnapshot().context.lastError?.code).toBe(31009);
  });

  it('leaving a phone that is not registered does not wait for the service', async () => {
    const runtime = await registeredPhone();
    FakeDevice.last!.state = 'registering';
    await runtime.leave();
    expect(runtime.device.getSnapshot().status).toBe('done');
  });

  it('leave() resolves once the phone has unregistered and signed out', async () => {
    const runtime = await registeredPhone();
    await runtime.leave();
    expect(runtime.device.getSnapshot().status).toBe('done');
    expect(FakeDevice.last!.state).toBe('unregistered');
  });
});

describe("voice runtime: the person's audio choices", () => {
  const prefs = {
    microphoneId: null,
    speakerId: null,
    ringtoneId: null,
    ringtoneVolume: 100,
  };

  it("says nothing when the browser's defaults cannot be selected yet (nothing was chosen)", async () => {
    const runtime = await registeredPhone();
    expect(await runtime.audio.apply(prefs)).toEqual([]);
  });

  it('says which chosen device is gone, and keeps the ones that are there', async () => {
    const runtime = await registeredPhone();
    expect(
      await runtime.audio.apply({
        ...prefs,
        microphoneId: 'mic-gone',
        speakerId: 'speaker-1',
        ringtoneId: 'ringer-gone',
      }),
    ).toEqual([
      'The chosen microphone is not available; the default one is used.',
      'The chosen ringtone device is not available; the default one is used.',
    ]);
    expect(await runtime.audio.apply({ ...prefs, microphoneId: 'mic-1' })).toEqual([]);
  });
});

describe("voice runtime: the server's word about the other side", () => {
  it('reads held and resumed from the message content, and nothing else', () => {
    expect(heldEvent('{"event":"held","by":"Bob"}')).toEqual({ type: 'call.heldByThem' });
    expect(heldEvent({ event: 'resumed' })).toEqual({ type: 'call.resumedByThem' });
    for (const other of ['{"event":"parked"}', 'held', '{', null, 42, '[]', { event: 1 }])
      expect(heldEvent(other)).toBeNull();
  });

  it('reads a ring group routing decision, refusing malformed ones', () => {
    expect(heldEvent('{"event":"routing","kind":"ring","text":"Ringing Ann."}')).toEqual({
      type: 'call.routed',
      kind: 'ring',
      text: 'Ringing Ann.',
    });
    for (const bad of [
      { event: 'routing', kind: 'ring' },
      { event: 'routing', kind: 1, text: 'x' },
      { event: 'routing', kind: 'ring', text: '' },
      { event: 'routing', kind: 'ring', text: 'x'.repeat(501) },
    ])
      expect(heldEvent(bad)).toBeNull();
  });
});
