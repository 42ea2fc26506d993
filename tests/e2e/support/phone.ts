/**
 * The unmodified Voice SDK (its published browser bundle) in a Chromium page signed in to the real
 * server, driven from the test: a Device per person, its calls and events recorded on `window.__phone`.
 * This is how the voice service is tested as a browser meets it, below the softphone UI.
 */
import { resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { API } from '../../../src/contracts/api';
import { addSessionCookie, apiSignIn } from '../../model/support/app';
import { present } from '../../integration/voice/support';

const SDK = resolve(
  import.meta.dirname,
  '../../../node_modules/@twilio/voice-sdk/dist/twilio.min.js',
);

/** The SDK's objects as the page-side test code uses them (the bundle has no types in the page). */
interface SdkEmitter {
  on(event: string, listener: (arg: { code?: number; message?: string }) => void): void;
}
interface SdkCall extends SdkEmitter {
  accept(): void;
  reject(): void;
  disconnect(): void;
  mute(muted: boolean): void;
  _mediaHandler?: { version?: { pc?: RTCPeerConnection } };
}
interface SdkDevice extends SdkEmitter {
  readonly isBusy: boolean;
  readonly calls: SdkCall[];
  disconnectAll(): void;
  register(): Promise<void>;
  updateToken(token: string): void;
  connect(options: { params: Record<string, string> }): Promise<SdkCall>;
}
interface PagePhone {
  device: SdkDevice;
  events: string[];
  calls: SdkCall[];
  watchCall(call: SdkCall, direction: string): void;
}
interface PageWindow {
  Twilio: { Device: new (token: string, options: unknown) => SdkDevice };
  __phone: PagePhone;
}

export interface Phone {
  name: string;
  identity: string;
  context: BrowserContext;
  page: Page;
  /** Events the Device and its calls emitted, in order ("device:registered", "call:accept", ...). */
  events(): Promise<string[]>;
  /**
   * Waits for `event` (or `event:<detail>`) emitted since the last `dial` from any phone: events of
   * earlier calls never satisfy it.
   */
  waitForEvent(event: string, timeoutMs?: number): Promise<void>;
  /** Marks the present end of the event log; `waitForEvent` looks after it. */
  mark(): Promise<void>;
}

/** Every phone opened in this test process, so a dial can mark them all. */
const phones = new Set<Phone>();

/**
 * A signed-in page with the SDK loaded and a registered Device, shown available in presence (neither
 * when `register` is false). The page is the server's origin without the app.
 */
export async function openPhone(
  browser: Browser,
  baseUrl: string,
  name: string,
  options: { register?: boolean; context?: BrowserContext } = {},
): Promise<Phone> {
  const email = `${name.toLowerCase()}@example.com`;
  // Routing rings the people presence shows (Twilio cannot be asked who is registered), and this
  // page, not the app, writes none: written here as the app does, before the sign-in below (this
  // one names them by their address, that one by their name).
  if (options.register !== false) await present(baseUrl, email);
  const { cookie } = await apiSignIn(baseUrl, name, email);
  const context =
    options.context ?? (await browser.newContext({ bypassCSP: true, permissions: ['microphone'] }));
  if (!options.context) await addSessionCookie(context, baseUrl, cookie);
  const page = await context.newPage();
  // Run under tsx (the benchmarks), functions handed to the page carry esbuild's `__name` helper.
  await page.addInitScript('globalThis.__name = globalThis.__name || ((f) => f);');
  // A page of the server's origin that does not run the app: the app, signed in, starts its own
  // phone (a second Device for the same person), and its SDK loader puts back the WebSocket it found
  // once the SDK has loaded. Were that to land between the swap below and the SDK's script, the SDK
  // would keep the browser's own WebSocket and dial wss:// against this plain-http server, failing
  // every attempt (CI, stop 46: "not registered in 30 s", the Device saying 31000/31005 throughout).
  const bare = await page.goto(`${baseUrl}${API.presenceSettings.path}`);
  if (!bare?.ok()) throw new Error(`${name}'s page did not open: HTTP ${bare?.status() ?? '?'}`);
  // The SDK always dials wss://; this server speaks plain ws:// on http, for /signal only.
  await page.evaluate(() => {
    const Native = window.WebSocket;
    class LocalSignalSocket extends Native {
      constructor(url: string | URL, protocols?: string | string[]) {
        const u = String(url);
        super(
          location.protocol === 'http:' && u === `wss://${location.host}/signal`
            ? `ws://${location.host}/signal`
            : u,
          protocols,
        );
      }
    }
    window.WebSocket = LocalSignalSocket;
  });
  await page.addScriptTag({ path: SDK });
  const identity = await page.evaluate(async (register) => {
    const res = await fetch('/api/voice/token');
    const body = (await res.json()) as {
      identity: string;
      token: string;
      device: Record<string, unknown>;
    };
    const w = window as unknown as PageWindow;
    const events: string[] = [];
    const device = new w.Twilio.Device(body.token, body.device);
    const calls: SdkCall[] = [];
    const watchCall = (call: SdkCall, dir: string) => {
      calls.push(call);
      for (const e of [
        'accept',
        'cancel',
        'disconnect',
        'reject',
        'ringing',
        'reconnecting',
        'reconnected',
      ])
        call.on(e, () => events.push(`call:${e}`));
      call.on('error', (err) =>
        events.push(`call:error:${String(err.code)}:${String(err.message)}`),
      );
      events.push(`call:${dir}`);
    };
    w.__phone = { device, events, calls, watchCall };
    for (const e of ['registered', 'unregistered', 'registering', 'tokenWillExpire'])
      device.on(e, () => events.push(`device:${e}`));
    device.on('error', (err) => events.push(`device:error:${String(err.code)}`));
    // As the app does: a fresh token from the server before this one ends.
    device.on('tokenWillExpire', () => {
      void fetch('/api/voice/token')
        .then((r) => r.json() as Promise<{ token: string }>)
        .then((t) => {
          device.updateToken(t.token);
          events.push('device:tokenUpdated');
        });
    });
    device.on('incoming', (call) => watchCall(call as unknown as SdkCall, 'incoming'));
    // Bounded: a registration that never completes (once in the voice bench, its page waited 15
    // minutes) fails here with what the Device said instead of hanging the run.
    if (register)
      await Promise.race([
        device.register(),
        new Promise((_, reject) =>
          setTimeout(
            () =>
              reject(new Error(`not registered in 30 s; the Device said: ${events.join(', ')}`)),
            30_000,
          ),
        ),
      ]);
    return body.identity;
  }, options.register !== false);
  const events = () => page.evaluate(() => [...(window as unknown as PageWindow).__phone.events]);
  let since = 0;
  const phone: Phone = {
    name,
    identity,
    context,
    page,
    events,
    async mark() {
      since = (await events()).length;
    },
    async waitForEvent(event, timeoutMs = 15_000) {
      await page.waitForFunction(
        ([e, from]) =>
          (window as unknown as PageWindow).__phone.events
            .slice(from)
            .some((x) => x === e || x.startsWith(`${e}:`)),
        [event, since] as const,
        { timeout: timeoutMs },
      );
    },
  };
  phones.add(phone);
  page.on('close', () => phones.delete(phone));
  return phone;
}

/** Places a call from `phone` to `to`; resolves once the SDK has the call object. */
export async function dial(phone: Phone, to: string): Promise<void> {
  await Promise.all([...phones].map((p) => p.mark().catch(() => undefined)));
  await phone.page.evaluate(async (target) => {
    const p = (window as unknown as PageWindow).__phone;
    const call = await p.device.connect({ params: { To: target } });
    p.watchCall(call, 'outgoing');
  }, to);
}

/**
 * Ends every call on every phone still open (a test's cleanup, so one that failed mid-call leaves no
 * call up for the next: the SDK then refuses to dial, "A Call is already active"), and waits until
 * none has a call, ringing or active.
 */
export async function hangUpEverywhere(timeoutMs = 10_000): Promise<void> {
  await Promise.all(
    [...phones].map(async (phone) => {
      if (phone.page.isClosed()) return;
      await phone.page.evaluate(() =>
        (window as unknown as PageWindow).__phone.device.disconnectAll(),
      );
      await phone.page.waitForFunction(
        () => {
          const device = (window as unknown as PageWindow).__phone.device;
          return !device.isBusy && device.calls.length === 0;
        },
        undefined,
        { timeout: timeoutMs },
      );
    }),
  );
}

/** Runs `action` ('accept' | 'reject' | 'disconnect' | 'mute' | 'unmute') on the phone's latest call. */
export async function onCall(phone: Phone, action: string): Promise<void> {
  await phone.page.evaluate((a) => {
    const calls = (window as unknown as PageWindow).__phone.calls;
    const call = calls[calls.length - 1];
    if (!call) throw new Error('no call');
    if (a === 'mute') call.mute(true);
    else if (a === 'unmute') call.mute(false);
    else if (a === 'accept' || a === 'reject' || a === 'disconnect') call[a]();
    else throw new Error(`unknown action ${a}`);
  }, action);
}

/** Inbound audio of the latest call from getStats: packets received and the audio level. */
export async function inboundAudio(phone: Phone): Promise<{ packets: number; level: number }> {
  return phone.page.evaluate(async () => {
    const calls = (window as unknown as PageWindow).__phone.calls;
    const call = calls[calls.length - 1];
    const pc = call?._mediaHandler?.version?.pc;
    if (!pc) return { packets: 0, level: 0 };
    const stats = await pc.getStats();
    let packets = 0;
    let level = 0;
    stats.forEach(
      (s: { type: string; kind?: string; packetsReceived?: number; audioLevel?: number }) => {
        if (s.type === 'inbound-rtp' && s.kind === 'audio') {
          packets = s.packetsReceived ?? 0;
          level = s.audioLevel ?? 0;
        }
      },
    );
    return { packets, level };
  });
}

/** Polls `read` until `ok` holds, or fails with the last value. */
export async function eventually<T>(
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (!ok(last)) {
    if (Date.now() > deadline) throw new Error(`timed out; last value ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 200));
    last = await read();
  }
  return last;
}
