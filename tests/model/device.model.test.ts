/**
 * Model-based test of the device machine in the real app: Dee, signed in in Chromium, with one or
 * two tabs through her own signalling proxy, against the real server and the real Voice SDK. Each
 * path below is a sequence of real actions (open a tab, take the phone over, sign out, cut or stall
 * the network, let a token run out, bring the tab back to the foreground); each step names the
 * device events the action makes each tab's machine take. A shadow device machine per tab is fed
 * those events, and the states it goes through must be the states the tab's phone status showed
 * (its `data-state`, logged in the page). The machine is parallel while it holds the phone
 * (registration and token side by side, and which of two concurrent events lands first is the
 * network's choice), so the comparison is per region: the registration's states in order, and the
 * token's states in order.
 *
 * Faults are made where they happen in life: the proxy cuts, stalls, closes cleanly or half-closes
 * the signalling socket; the token endpoint's answers are failed, held or swapped (for a token the
 * server signed that lives 20 s, or a garbled one); the registration check's request is failed.
 * Two browser parts are stood in for: a Web Lock request refused or left waiting (tests/model/
 * support/lock-gate.ts), and the page coming back to the foreground (a `visibilitychange` event);
 * one server answer is sent by the proxy, an error frame for a call the page does not know.
 *
 * Events that change no state (an incoming call, a dial, an error that changes nothing) are checked
 * by what they show where they show something (the call card), and fed to the shadow for coverage.
 * The coverage printed is measured on the shadows; every state and transition of the chart is
 * walked here (tests/unit/machines/device.model.test.ts walks the same chart over fakes).
 */
import type { BrowserContext, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stateValueText } from '../../src/machines/stateValue';
import { signToken } from '../support/access-tokens';
import { startServer, type RunningServer } from '../support/server';
import {
  deviceHarness,
  deviceTimer,
  replayDeviceEvent,
  type DeviceModelEvent,
  type DeviceSut,
} from '../unit/machines/deviceHarness';
import { Coverage } from '../unit/machines/syncModelSupport';
import { deviceMachine } from '../../src/machines/device.machine';
import { addSessionCookie, apiSignIn } from './support/app';
import { installLockGate, setLockGate } from './support/lock-gate';
import { startSignalProxy, type SignalProxy } from './support/signal-proxy';
import { installStateLog, readStateLog } from './support/state-log';
import { launchChromiumForVoice, openVoicePerson, type VoicePerson } from './support/voice';
import { RECONNECT_TIMEOUT_MS, TOKEN_EXPIRY_MS } from '../../src/machines/device.setup';

/** A short token's life: the SDK asks for a new one 10 s before its end. */
const SHORT_TTL = 20;

// ---- the device events a step names ----

const ev = (type: string, extra: Record<string, unknown> = {}): DeviceModelEvent => ({
  type,
  ...extra,
});
const TOKEN = ev('xstate.done.actor.registrationToken', { output: 'token' });
const TOKEN_FAILS = ev('xstate.error.actor.registrationToken', { error: new Error('503') });
const RENEWED = ev('xstate.done.actor.renewalToken', { output: 'token' });
const RENEWAL_FAILS = ev('xstate.error.actor.renewalToken', { error: new Error('503') });
const CHECKED = (output: 'registered' | 'unregistered') =>
  ev('xstate.done.actor.checkRegistration', { output });
const CHECK_FAILS = ev('xstate.error.actor.checkRegistration', { error: new Error('offline') });
const LOCKED = ev('xstate.done.actor.acquireLock');
const LOCK_REFUSED = ev('xstate.error.actor.acquireLock', { error: new Error('refused') });
const REG = ev('device.registered');
const UNREG = ev('device.unregistered');
const ERROR = (code: number) => ev('device.error', { code, message: '' });
const WILL_EXPIRE = ev('device.tokenWillExpire');
const TAKE_OVER = ev('device.takeOver');
const RELEASE = ev('device.release');
const SIGN_OUT = ev('device.signOut');
const RETRY = ev('device.retry');
const VISIBLE = ev('page.visible');
const EXPIRY = ev(deviceTimer('TOKEN_EXPIRY', 'owner.token.renewing'));
const BACKOFF = ev(deviceTimer('RENEW_BACKOFF', 'owner.token.renewing.waiting'));
const RECONNECT_TIMEOUT = ev(deviceTimer('RECONNECT_TIMEOUT', 'owner.registration.reconnecting'));
const RELEASE_TIMEOUT = ev(deviceTimer('UNREGISTER_TIMEOUT', 'releasing'));
const SIGN_OUT_TIMEOUT = ev(deviceTimer('UNREGISTER_TIMEOUT', 'signingOut'));
const INCOMING = ev('device.incoming', {
  callId: 'CA1',
  from: 'client:cal',
  to: 'client:dee',
  params: {},
});
const DIAL = ev('device.dial', {
  to: { identity: null, number: 'Nobody Here', displayName: null },
  params: {},
});

// ---- Dee, her tabs and her network ----

type Tab = 't1' | 't2';
type TokenAnswer = 'pass' | 'short' | 'fail' | 'garbled' | 'hold';

interface Dee {
  context: BrowserContext;
  proxy: SignalProxy;
  pages: Partial<Record<Tab, Page>>;
  /** How the next token requests are answered, in order; then `tokenDefault`. */
  tokens: TokenAnswer[];
  tokenDefault: TokenAnswer;
  /** Lets the held token requests go (answered 503). */
  releaseHeldTokens: () => void;
  /** The next registration checks fail (the request is aborted). */
  failChecks: number;
  /**
   * The tab is frozen in the background: its presence heartbeat (`/api/presence`, its renewals) does
   * not reach the server, so its presence item lapses with its ttl, which is how the dead-phone
   * check learns of it on every backend (server/calls/registration.ts: Twilio cannot be asked).
   */
  frozen: boolean;
  /**
   * Tabs open with Playwright's clock in the page (time runs as usual until a step moves it on),
   * so a step can skip a long wait in the page's timers; the server's clock is not moved.
   */
  movableClock: boolean;
  errors: string[];
}

let server: RunningServer;
let browser: Awaited<ReturnType<typeof launchChromiumForVoice>>;
let cal: VoicePerson;
let dee: Dee | null = null;
const coverage = new Coverage(deviceMachine);
let started = 0;
let steps = 0;

beforeAll(async () => {
  started = Date.now();
  // A presence item lapses 4 s after the last heartbeat (every second): a frozen tab's phone is
  // seen gone within moments (the default is 75 s).
  server = await startServer({
    env: { SWITCHBOARD_PRESENCE_TTL: '4', SWITCHBOARD_PRESENCE_HEARTBEAT: '1' },
  });
  browser = await launchChromiumForVoice();
  cal = await openVoicePerson(browser, server, 'Cal');
});

afterAll(async () => {
  console.log(
    `[model] device in Chromium: ${PATHS.length} paths, ${steps} steps, ` +
      `${Math.round((Date.now() - started) / 1000)} s; states ${coverage.states.size}/${coverage.allStates.size}; ` +
      `transitions ${coverage.transitions.size}/${coverage.allTransitions.size}`,
  );
  await closeDee();
  await browser?.close();
  await cal?.proxy.close();
  await server?.stop();
  server?.cleanup();
});

/**
 * The token a route answers with: the server's own grants, re-signed with the account's API key
 * (as Twilio's tokens are; the twins' made-up account, server/twins/account.ts) to live SHORT_TTL
 * seconds.
 */
function shortToken(token: string): string {
  const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as {
    grants: Record<string, unknown>;
  };
  return signToken(server.account(), payload.grants, Math.floor(Date.now() / 1000), SHORT_TTL);
}

async function openDee(): Promise<Dee> {
  const proxy = await startSignalProxy(server.port);
  const { cookie } = await apiSignIn(server.url, 'Dee', 'dee@example.com');
  const context = await browser.newContext({ permissions: ['microphone'] });
  await addSessionCookie(context, proxy.url, cookie);
  const heldTokens: Array<() => void> = [];
  const person: Dee = {
    context,
    proxy,
    pages: {},
    tokens: [],
    tokenDefault: 'pass',
    releaseHeldTokens: () => {
      for (const go of heldTokens.splice(0)) go();
    },
    failChecks: 0,
    frozen: false,
    movableClock: false,
    errors: [],
  };
  const refuse = (route: Route) =>
    route.fulfill({ status: 503, json: { error: { message: 'The server is busy.' } } });
  await context.route('**/api/voice/token', async (route) => {
    const answer = person.tokens.shift() ?? person.tokenDefault;
    if (answer === 'fail') return refuse(route);
    if (answer === 'hold') {
      await new Promise<void>((go) => heldTokens.push(go));
      return refuse(route).catch(() => undefined);
    }
    if (answer === 'pass') return route.continue();
    const response = await route.fetch();
    const body = (await response.json()) as { token: string; ttlSeconds: number };
    const token = answer === 'short' ? shortToken(body.token) : 'garbled.token.value';
    return route.fulfill({ response, json: { ...body, token, ttlSeconds: SHORT_TTL } });
  });
  await context.route('**/api/presence**', (route) =>
    person.frozen ? route.abort('connectionfailed') : route.continue(),
  );
  await context.route('**/api/voice/registration', async (route) => {
    if (person.failChecks > 0) {
      person.failChecks -= 1;
      return route.abort('connectionfailed');
    }
    return route.continue();
  });
  return person;
}

async function closeDee(): Promise<void> {
  if (!dee) return;
  dee.releaseHeldTokens();
  await dee.context.close();
  await dee.proxy.close();
  dee = null;
}

async function openTab(tab: Tab): Promise<void> {
  const d = dee!;
  const page = await d.context.newPage();
  page.on('pageerror', (err) => d.errors.push(`${tab}: ${err.stack ?? err.message}`));
  await installStateLog(page);
  await installLockGate(page);
  if (d.movableClock) await page.clock.install();
  await page.goto(`${d.proxy.url}/history`);
  d.pages[tab] = page;
}

const page = (tab: Tab): Page => {
  const p = dee?.pages[tab];
  if (!p) throw new Error(`no tab ${tab}`);
  return p;
};

const click = (tab: Tab, name: string) =>
  page(tab).getByRole('button', { name, exact: true }).click();

async function foreground(tab: Tab): Promise<void> {
  await page(tab).evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
}

/** Waits until the service has (or no longer has) Dee's phone registered. */
async function serviceSees(registered: boolean): Promise<void> {
  await expect
    .poll(
      () =>
        page('t1').evaluate(async () => {
          const res = await fetch('/api/voice/registration');
          return ((await res.json()) as { registered: boolean }).registered;
        }),
      { timeout: 20_000, interval: 200 },
    )
    .toBe(registered);
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- the paths ----

interface Step {
  name: string;
  act: () => void | Promise<void>;
  /** The events each tab's machine takes; a tab opened by this step starts with `open`. */
  t1?: DeviceModelEvent[];
  t2?: DeviceModelEvent[];
  /** The tab opens in this step: as the owner (first tab) or as a follower. */
  open?: { tab: Tab; owner: boolean };
  timeout?: number;
  /** After the check. */
  then?: () => void | Promise<void>;
}

interface Path {
  name: string;
  steps: Step[];
}

const openFirst = (name = 'Dee opens the app', before?: () => void): Step => ({
  name,
  open: { tab: 't1', owner: true },
  act: async () => {
    before?.();
    await openTab('t1');
  },
  t1: [TOKEN, REG],
});

const openSecond: Step = {
  name: 'a second tab',
  open: { tab: 't2', owner: false },
  act: () => openTab('t2'),
  t2: [],
};

const secondTakesOver = (t1: DeviceModelEvent[]): Step => ({
  name: 'the second tab takes the phone',
  act: () => click('t2', 'Use the phone here'),
  t2: [TAKE_OVER, LOCKED, TOKEN, REG],
  t1,
});

/** The second tab takes the phone while what the first tab sends stalls (its unregister too). */
const takeOverWhileStalled = (t1: DeviceModelEvent[]): Step => ({
  ...secondTakesOver(t1),
  name: 'the second tab takes the phone while the first tab’s link stalls',
  act: async () => {
    dee!.proxy.hold('up', { existing: true });
    await click('t2', 'Use the phone here');
  },
});

const PATHS: Path[] = [
  {
    name: 'the phone moves between tabs; a call comes in, one goes out',
    steps: [
      openFirst(),
      openSecond,
      secondTakesOver([RELEASE, UNREG]),
      {
        name: 'the first tab takes it back',
        act: () => click('t1', 'Use the phone here'),
        t1: [TAKE_OVER, LOCKED, TOKEN, REG],
        t2: [RELEASE, UNREG],
      },
      {
        name: 'Cal calls Dee',
        act: async () => {
          await cal.page.getByTestId('dial-input').fill('dee@example.com');
          await cal.page.getByRole('button', { name: 'Call', exact: true }).click();
          await page('t1').locator('[data-testid="call-card"][data-status="incoming"]').waitFor();
        },
        t1: [INCOMING],
        then: async () => {
          await cal.page.getByRole('button', { name: 'Hang up', exact: true }).click();
          await page('t1').locator('[data-testid="call-card"][data-status="ended"]').waitFor();
          await cal.page.getByRole('button', { name: 'Dismiss' }).click();
        },
      },
      {
        name: 'Dee dials someone unknown',
        act: async () => {
          // An extension nobody has: the voice service refuses it (a name nobody has is refused
          // by the dial box itself, with no call).
          await page('t1').getByTestId('dial-input').fill('199');
          await page('t1').getByRole('button', { name: 'Call', exact: true }).click();
          await expect.poll(() => page('t1').locator('[data-testid="call-card"]').count()).toBe(2);
        },
        t1: [DIAL],
      },
    ],
  },
  {
    name: 'sign-out from the tab with the phone unregisters it first',
    steps: [
      openFirst(),
      { name: 'sign out', act: () => click('t1', 'Sign out'), t1: [SIGN_OUT, UNREG] },
    ],
  },
  {
    name: 'sign-out from a follower',
    steps: [
      openFirst(),
      openSecond,
      { name: 'sign out in the second tab', act: () => click('t2', 'Sign out'), t2: [SIGN_OUT] },
    ],
  },
  {
    name: 'taking over refused, then signing out while taking over',
    steps: [
      openFirst(),
      openSecond,
      {
        name: 'the browser refuses the lock',
        act: async () => {
          await setLockGate(page('t2'), 'refuse');
          await click('t2', 'Use the phone here');
        },
        t2: [TAKE_OVER, LOCK_REFUSED],
        t1: [],
      },
      {
        name: 'the lock request waits',
        act: async () => {
          await setLockGate(page('t2'), 'hold');
          await click('t2', 'Use the phone here');
        },
        t2: [TAKE_OVER],
        t1: [],
      },
      { name: 'sign out meanwhile', act: () => click('t2', 'Sign out'), t2: [SIGN_OUT] },
    ],
  },
  {
    name: 'no voice token at start, then Try again',
    steps: [
      {
        ...openFirst('Dee opens the app; the token request fails', () => dee!.tokens.push('fail')),
        t1: [TOKEN_FAILS],
      },
      { name: 'Try again', act: () => click('t1', 'Try again'), t1: [RETRY, TOKEN, REG] },
    ],
  },
  {
    name: 'a garbled token is refused, then Try again',
    steps: [
      {
        ...openFirst('Dee opens the app with a garbled token', () => dee!.tokens.push('garbled')),
        t1: [TOKEN, ERROR(20101)],
      },
      { name: 'Try again', act: () => click('t1', 'Try again'), t1: [RETRY, TOKEN, REG] },
    ],
  },
  {
    name: 'the socket closes cleanly while registering; the SDK registers by itself',
    steps: [
      {
        ...openFirst('Dee opens the app; the service does not answer', () =>
          dee!.proxy.hold('down'),
        ),
        t1: [TOKEN],
      },
      {
        name: 'the socket goes away',
        act: async () => {
          await wait(500);
          dee!.proxy.goAway();
        },
        t1: [UNREG],
      },
      {
        name: 'the network is back',
        act: () => dee!.proxy.release('down'),
        t1: [REG],
      },
    ],
  },
  {
    name: 'the socket closes cleanly while registered, and comes back',
    steps: [
      openFirst(),
      { name: 'the socket goes away', act: () => dee!.proxy.goAway(), t1: [UNREG, REG] },
    ],
  },
  {
    name: 'the socket is cut while registered, and comes back',
    steps: [
      openFirst(),
      {
        name: 'cut (new sockets refused)',
        act: async () => {
          dee!.proxy.drop({ refuse: true });
          await wait(3000); // the SDK's first retries fail too
        },
        t1: [ERROR(53001), ERROR(53001)],
      },
      { name: 'the network is back', act: () => dee!.proxy.restore(), t1: [REG] },
    ],
  },
  {
    name: 'cut for longer than the reconnect window',
    steps: [
      openFirst('Dee opens the app', () => (dee!.movableClock = true)),
      {
        name: 'cut (new sockets refused) for 60 s',
        act: async () => {
          dee!.proxy.drop({ refuse: true });
          await wait(3000); // the SDK's first retries fail
          // The page's minute passes at once: the SDK keeps retrying, the window closes.
          await page('t1').clock.fastForward(RECONNECT_TIMEOUT_MS);
        },
        t1: [ERROR(53001), ERROR(53001), RECONNECT_TIMEOUT],
      },
      { name: 'the network is back', act: () => dee!.proxy.restore(), t1: [REG] },
    ],
  },
  {
    name: 'the service sends an error that changes nothing',
    steps: [
      openFirst(),
      {
        name: 'an error for a call this page does not know',
        act: async () => {
          dee!.proxy.inject(
            JSON.stringify({
              type: 'error',
              version: '1.6',
              payload: {
                callsid: 'CA00000000000000000000000000000000',
                error: { code: 31100, message: 'No such call for this device' },
              },
            }),
          );
          await wait(500);
        },
        t1: [ERROR(31100)],
      },
    ],
  },
  {
    name: 'back in the foreground: registered, lost in the background, cannot ask',
    steps: [
      openFirst(),
      {
        name: 'the tab comes back; the service has the phone',
        act: () => foreground('t1'),
        t1: [VISIBLE, CHECKED('registered')],
      },
      {
        name: 'the socket died silently in a frozen tab; the tab comes back',
        act: async () => {
          dee!.frozen = true;
          dee!.proxy.sever();
          await serviceSees(false);
          dee!.frozen = false;
          await foreground('t1');
        },
        t1: [VISIBLE, CHECKED('unregistered'), TOKEN, REG],
      },
      {
        name: 'the tab comes back; the check cannot reach the server',
        act: async () => {
          dee!.failChecks = 1;
          await foreground('t1');
        },
        t1: [VISIBLE, CHECK_FAILS, TOKEN, REG],
      },
    ],
  },
  {
    name: 'a token renewed after one failure',
    steps: [
      openFirst('Dee opens the app with a short token', () => {
        dee!.tokens.push('short', 'fail', 'pass');
        dee!.movableClock = true;
      }),
      {
        name: 'the token nears its end',
        // The page's clock moves on to the SDK's warning; the server's token stays good.
        act: () => page('t1').clock.fastForward(SHORT_TTL * 1000 - TOKEN_EXPIRY_MS),
        t1: [WILL_EXPIRE, RENEWAL_FAILS, BACKOFF, RENEWED],
      },
    ],
  },
  {
    name: 'a token that cannot be renewed expires; Try again',
    steps: [
      openFirst('Dee opens the app with a short token', () => {
        dee!.tokens.push('short');
        dee!.tokenDefault = 'hold';
      }),
      {
        name: 'renewal waits until the token has expired',
        act: () => undefined,
        t1: [WILL_EXPIRE, EXPIRY, ERROR(20104)],
        timeout: 40_000,
      },
      {
        name: 'Try again',
        act: async () => {
          dee!.tokenDefault = 'pass';
          dee!.releaseHeldTokens();
          await click('t1', 'Try again');
        },
        t1: [RETRY, TOKEN, RENEWED, REG],
      },
    ],
  },
  {
    name: 'cut until the token has expired: the reconnect is refused',
    steps: [
      openFirst('Dee opens the app with a short token', () => {
        dee!.tokens.push('short');
        dee!.tokenDefault = 'hold';
      }),
      {
        name: 'cut (new sockets refused)',
        act: async () => {
          dee!.proxy.drop({ refuse: true });
          await wait(3000);
        },
        t1: [ERROR(53001), ERROR(53001)],
      },
      {
        name: 'the token expires meanwhile',
        act: () => undefined,
        t1: [WILL_EXPIRE, EXPIRY],
        timeout: 40_000,
      },
      {
        name: 'the network is back',
        act: () => dee!.proxy.restore(),
        t1: [ERROR(20104)],
      },
    ],
  },
  {
    name: 'handing over while the old tab’s link stalls',
    steps: [
      openFirst(),
      openSecond,
      {
        ...takeOverWhileStalled([RELEASE, RELEASE_TIMEOUT]),
        then: () => dee!.proxy.release('up'),
      },
    ],
  },
  {
    name: 'handing over, then the old tab’s socket is cut',
    steps: [
      openFirst(),
      openSecond,
      takeOverWhileStalled([RELEASE]),
      { name: 'the old socket is cut', act: () => dee!.proxy.dropHeld(), t1: [ERROR(53001)] },
    ],
  },
  {
    name: 'signing out while handing over, with the link stalled',
    steps: [
      openFirst(),
      openSecond,
      takeOverWhileStalled([RELEASE]),
      {
        name: 'sign out in the first tab',
        act: () => click('t1', 'Sign out'),
        t1: [SIGN_OUT, SIGN_OUT_TIMEOUT],
      },
    ],
  },
  {
    name: 'signing out, then the socket is cut',
    steps: [
      openFirst(),
      {
        name: 'sign out with the link stalled',
        act: async () => {
          dee!.proxy.hold('up', { existing: true });
          await click('t1', 'Sign out');
        },
        t1: [SIGN_OUT],
      },
      { name: 'the socket is cut', act: () => dee!.proxy.dropHeld(), t1: [ERROR(53001)] },
    ],
  },
];

// ---- what a tab showed, per region ----

interface Projection {
  registration: string[];
  token: string[];
}

/** "owner.registration.X owner.token.Y" → X and Y; any other state is both. */
function regions(state: string): [string, string] {
  const reg = /owner\.registration\.(\S+)/.exec(state);
  const tok = /owner\.token\.(\S+)/.exec(state);
  if (reg && tok) return [reg[1]!, tok[1]!];
  return [state, state];
}

/** The states after `from`, per region, each without repeats (nor its first equal to `from`'s). */
function project(from: string | null, states: string[]): Projection {
  const [reg0, tok0] = from === null ? [null, null] : regions(from);
  const out: Projection = { registration: [], token: [] };
  for (const s of states) {
    const [reg, tok] = regions(s);
    if (reg !== (out.registration.at(-1) ?? reg0)) out.registration.push(reg);
    if (tok !== (out.token.at(-1) ?? tok0)) out.token.push(tok);
  }
  return out;
}

interface Tracked {
  /** How much of the page's phone-status log has been checked, and its last state. */
  checked: number;
  last: string | null;
}

async function phoneLog(tab: Tab): Promise<string[]> {
  return (await readStateLog(page(tab)))
    .filter((e) => e.key === 'phone-status')
    .map((e) => e.state);
}

async function checkTab(
  tab: Tab,
  tracked: Tracked,
  expected: string[],
  where: string,
  timeout: number,
): Promise<void> {
  const want = project(tracked.last, expected);
  let seen: string[] = [];
  let got: Projection = { registration: [], token: [] };
  await expect
    .poll(
      async () => {
        seen = (await phoneLog(tab)).slice(tracked.checked);
        got = project(tracked.last, seen);
        return JSON.stringify(got) === JSON.stringify(want);
      },
      { timeout, interval: 100 },
    )
    .toBe(true)
    .catch(async () => {
      const problem = page(tab).getByTestId('phone-error');
      const says = (await problem.count()) > 0 ? ` It says "${await problem.textContent()}".` : '';
      // What the page was doing instead: its every logged state and the start of its text.
      const log = (await readStateLog(page(tab))).map((e) => `${e.key}:${e.state}`);
      const text = (
        (await page(tab)
          .textContent('body')
          .catch(() => '')) ?? ''
      ).slice(0, 300);
      console.log(
        `[device.model] ${where}: ${page(tab).url()} logged ${JSON.stringify(log)}; text: ${text}`,
      );
      throw new Error(
        `${where}: ${tab} showed ${JSON.stringify(seen)} (${JSON.stringify(got)}); ` +
          `the model went ${JSON.stringify(expected)} (${JSON.stringify(want)}).${says}`,
      );
    });
  tracked.checked += seen.length;
  if (seen.length > 0) tracked.last = seen.at(-1)!;
}

/**
 * Feeds a step's events to the tabs' shadow machines (starting the shadow of a tab the step opens)
 * and returns the states each shadow went through, as the tab's phone status should show them.
 */
async function feedShadows(
  shadows: Partial<Record<Tab, DeviceSut>>,
  step: Step,
  coverage: Coverage,
  where: string,
): Promise<Record<Tab, string[]>> {
  const states: Record<Tab, string[]> = { t1: [], t2: [] };
  if (step.open) {
    const shadow = deviceHarness({ owner: step.open.owner, inspect: coverage.inspect });
    shadows[step.open.tab] = shadow;
    states[step.open.tab].push(stateValueText(shadow.snap().value));
  }
  for (const tab of ['t1', 't2'] as const) {
    const shadow = shadows[tab];
    for (const e of step[tab] ?? []) {
      if (!shadow) throw new Error(`${where}: ${tab} takes ${e.type} before it opens`);
      await replayDeviceEvent(shadow, e);
      states[tab].push(stateValueText(shadow.snap().value));
    }
  }
  return states;
}

async function walk(path: Path): Promise<void> {
  await closeDee();
  dee = await openDee();
  const shadows: Partial<Record<Tab, DeviceSut>> = {};
  const tabs: Record<Tab, Tracked> = {
    t1: { checked: 0, last: null },
    t2: { checked: 0, last: null },
  };
  try {
    for (const step of path.steps) {
      const where = `${path.name} > ${step.name}`;
      const expected = await feedShadows(shadows, step, coverage, where);
      await step.act();
      const timeout = step.timeout ?? 20_000;
      for (const tab of ['t1', 't2'] as const) {
        if (step[tab] === undefined && step.open?.tab !== tab) continue;
        await checkTab(tab, tabs[tab], expected[tab], where, timeout);
      }
      await step.then?.();
      steps += 1;
      coverage.steps += 1;
    }
    expect(dee.errors, `${path.name}: page errors`).toEqual([]);
  } finally {
    for (const shadow of Object.values(shadows)) shadow.actor.stop();
    coverage.paths += 1;
  }
}

describe('device machine, model-based, in Chromium', () => {
  it('the paths plan every state and transition of the chart', async () => {
    const planned = new Coverage(deviceMachine);
    for (const path of PATHS) {
      const shadows: Partial<Record<Tab, DeviceSut>> = {};
      for (const step of path.steps) await feedShadows(shadows, step, planned, path.name);
      for (const shadow of Object.values(shadows)) shadow.actor.stop();
    }
    expect(planned.missingStates()).toEqual([]);
    expect(planned.missingTransitions()).toEqual([]);
  });

  it.each(PATHS.map((p): [string, Path] => [p.name, p]))(
    '%s',
    (_name, path) => walk(path),
    150_000,
  );

  it('walked every state and transition of the chart', () => {
    expect(coverage.missingStates()).toEqual([]);
    expect(coverage.missingTransitions()).toEqual([]);
    expect(cal.errors).toEqual([]);
  });
});
