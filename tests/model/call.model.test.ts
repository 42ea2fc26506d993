/**
 * Model-based test of the call machine in the real app: Ann and Bob, each a signed-in Chromium
 * context (fake microphone) reaching the real server through their own signalling proxy, call each
 * other through the softphone. Ann's call is the outgoing machine and Bob's the incoming one; every
 * path planned over the machine is walked with real actions, and after each one the states both
 * cards went through (their `data-state`, logged in the page) must be exactly the states the model
 * goes through, and an ended card must give the model's reason.
 *
 * The actions, and the call events each makes the real app take:
 * - dial (Ann types Bob's address): Ann connecting then ringing; Bob's call rings.
 * - dial while Ann's downlink stalls (the proxy holds what the server sends her): Ann stays
 *   connecting while Bob rings.
 * - dial someone unknown (an extension nobody has): ringing while the service asks the app, which
 *   refuses it before it is answered (`<Reject>`, the SDK's 31603): error, then disconnect; the
 *   card says why (the row's reason).
 * - Bob accepts, rejects, or lets it ring: accept and accepted (Ann: accepted); reject (Ann: the
 *   service's 31603 error, then disconnect); after 30 s the call is missed here (RING_TIMEOUT: the
 *   server rings for RING_SECONDS, longer than the app's 30 s).
 * - Bob accepts while his microphone prompt is open (the test stands in for the person at the
 *   browser's prompt, which headless Chromium never shows): answering, until he allows (accepted)
 *   or blocks it (the SDK's 31401 error, then disconnect; Ann: declined).
 * - Bob accepts while his uplink stalls: his media opens, but the service never hears his answer;
 *   if Ann hangs up then, Bob's open call is cancelled.
 * - Another tab of Bob takes the phone over while his call rings: Bob's tab lets go of the phone,
 *   which hangs the ringing call up (rejected; Ann: declined).
 * - Hang up on either side (Ann's hang-up cancels Bob's ringing or answering call), mute, unmute,
 *   a keypad digit.
 * - Ann's signalling is cut (the proxy resets it and refuses new sockets): her open call is
 *   reconnecting; when the network is back, reconnected, or, if Bob hung up meanwhile, the service
 *   refuses the reconnect (31209): error, then disconnect.
 * - Bob holds Ann (hold, then the server's answer; Ann: heldByThem from the server's call message)
 *   and resumes (resume, the answer; Ann: resumedByThem). While held, Ann's own Hold is refused by
 *   the service (409): hold, then the error.
 * - Bob parks the call: park, then the server's hangup of his leg (disconnect) before its answer, or
 *   its answer before the hangup (his downlink held until the card has ended); Ann: heldByThem, and
 *   she waits in the park until she hangs up.
 * - The server cannot be reached when Bob resumes or parks: the error, and nothing changes. Stand-in:
 *   the page's request is answered 503 by Playwright's route, as an unreachable server would be.
 * - Bob transfers Ann to Cat (a raw signalling phone with a werift peer, not a page: only Bob's and
 *   Ann's machines are walked). Blind: transfer, then the server's hangup of Bob's leg before its
 *   answer, or the answer first (held as for park); Ann: heldByThem, and resumedByThem when Cat
 *   answers. A transfer to nobody is refused (404): the error. Attended ("Talk first"): transfer and
 *   the answer (consulting; Ann: heldByThem); Cat answers (consultAnswered), declines or hangs up
 *   (consultEnded; Ann: resumedByThem); Bob completes (the hangup first or the answer first), cancels
 *   (the server's consultEnded first, or its answer first), hangs up (with Cat in: the transfer is
 *   done; before: the call ends), or the server cannot be reached on complete or cancel.
 * - To keep the plan small, hold and park start only from a plain open call (nothing muted, cut or
 *   keyed), and while a call is held or parked only the actions that end those states are offered.
 *
 * The plan (tests/model/support/cover.ts) is a transition cover of the chart over these actions.
 * Coverage is measured on the machines themselves, fed the same events as the pages, and printed.
 * Every state and transition of the call machine is walked here; none is left to the unit model
 * test (tests/unit/machines/call.model.test.ts) alone.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createActor,
  getInitialSnapshot,
  getNextSnapshot,
  SimulatedClock,
  type Actor,
  type SnapshotFrom,
} from 'xstate';
import { callMachine } from '../../src/machines/call.machine';
import { selectCallEndText } from '../../src/machines/call.selectors';
import { remoteFromAddress } from '../../src/machines/call.types';
import { stateValueText } from '../../src/machines/stateValue';
import { startServer, type RunningServer } from '../support/server';
import { Coverage } from '../unit/machines/syncModelSupport';
import { planPaths, type ActionWorld } from './support/cover';
import { answerMicPrompt, holdMicPrompt, micPromptsWaiting } from './support/mic-prompt';
import { readStateLog } from './support/state-log';
import {
  answerTo,
  closeLegs,
  person as rawPerson,
  type Person as RawPerson,
} from '../integration/voice/media-support';
import type { Frame } from '../integration/voice/support';
import {
  launchChromiumForVoice,
  openVoicePerson,
  REGISTERED,
  statesOf,
  waitForPhone,
  waitForStates,
  type VoicePerson,
} from './support/voice';
import { RING_TIMEOUT_MS, type CallEvent, type CallInput } from '../../src/machines/call.setup';

/** How far Bob's page clock moves at a time while his call rings out (see `ringOut`). */
const RING_STEP_MS = 7_500;
/** Longer than the app's RING_TIMEOUT, so the app gives up on a ringing call before the server. */
const RING_SECONDS = 60;
const RING_TIMEOUT = 'xstate.after.RING_TIMEOUT.call.incoming.ringing';
const DECLINED = 'Bob declined the call.';
const NOBODY = 'Nobody here is called "Nobody Here".';
/** The dial box refuses a name nobody has itself; an extension nobody has reaches the service. */
const NO_EXTENSION = "Nobody has extension 199. The Users screen lists everyone's extension.";

type Snap = SnapshotFrom<typeof callMachine>;
type Side = 'a' | 'b';
type Effect = CallEvent | { type: 'init' } | { type: typeof RING_TIMEOUT };

interface World {
  /** Ann's call (outgoing), Bob's (incoming). */
  a: Snap | null;
  b: Snap | null;
  /** Ann's signalling is cut. */
  aCut: boolean;
  /** What the server sends Ann is held. */
  aStalled: boolean;
  /** What Bob sends the server is held. */
  bStalled: boolean;
  /** Bob's microphone prompt is open. */
  bPrompt: boolean;
  /** Cat, a transfer's target (a raw signalling phone): not called, ringing, or talking. */
  cat: 'none' | 'ringing' | 'talking';
}

type Action =
  | 'dial'
  | 'dialStalled'
  | 'dialNobody'
  | 'accept'
  | 'acceptPrompt'
  | 'allowMic'
  | 'blockMic'
  | 'acceptStalled'
  | 'reject'
  | 'takeOver'
  | 'ringOut'
  | 'callerHangsUp'
  | 'calleeHangsUp'
  | 'muteA'
  | 'unmuteA'
  | 'muteB'
  | 'unmuteB'
  | 'digitsA'
  | 'digitsB'
  | 'cutA'
  | 'restoreA'
  | 'holdB'
  | 'resumeB'
  | 'holdRefusedA'
  | 'resumeFailsB'
  | 'parkB'
  | 'parkAnswerFirstB'
  | 'parkFailsB'
  | 'transferBlindB'
  | 'transferBlindAnswerFirstB'
  | 'transferFailsB'
  | 'catAnswers'
  | 'consultB'
  | 'catAnswersConsult'
  | 'catDeclines'
  | 'catHangsUp'
  | 'completeB'
  | 'completeAnswerFirstB'
  | 'completeFailsB'
  | 'cancelB'
  | 'cancelAnswerFirstB'
  | 'cancelFailsB'
  | 'hangUpConsultingB';

const input = (side: Side): CallInput => ({
  direction: side === 'a' ? 'outgoing' : 'incoming',
  callId: side === 'a' ? 'out-1' : 'CA1',
  remote: remoteFromAddress(side === 'a' ? 'client:bob' : 'client:ann'),
  params: {},
  now: () => 0,
});

const live = (s: Snap | null): s is Snap => s !== null && s.status === 'active';
const ringingHere = (s: Snap | null) => live(s) && s.matches({ incoming: 'ringing' });
const isOpen = (s: Snap | null): s is Snap => live(s) && s.matches('open');
const isMuted = (s: Snap) => s.matches({ open: { audio: 'muted' } });
const error = (code: number, message: string): Effect => ({ type: 'call.error', code, message });
const done = (id: string): Effect => ({ type: `xstate.done.actor.${id}` }) as unknown as Effect;
const failed = (id: string, message: string): Effect =>
  ({ type: `xstate.error.actor.${id}`, error: new Error(message) }) as unknown as Effect;
const UNREACHABLE = 'The server could not be reached (test).';
const HELD: Effect = { type: 'call.heldByThem' };
const RESUMED: Effect = { type: 'call.resumedByThem' };
const CANCELLED = 'You cancelled the transfer to cat.';
const HELD_BY_THEM =
  'The other side has put this call on hold; it can be held once they resume it.';

/** The open call's hold, them, park and transfer regions (null when not open). */
function regions(
  s: Snap | null,
): { hold: string; them: string; park: string; transfer: string } | null {
  if (!isOpen(s)) return null;
  const v = (s.value as { open: Record<string, string> }).open;
  return { hold: v.hold!, them: v.them!, park: v.park!, transfer: v.transfer! };
}
const TRANSFER = (mode: 'blind' | 'consult', to = 'cat'): Effect => ({
  type: 'call.transfer',
  to,
  mode,
});
const consultEnded = (reason: string): Effect => ({ type: 'call.consultEnded', reason });
/** An open call with every region at home: not muted, held, parked, reconnecting or keyed. */
function plain(s: Snap | null): boolean {
  const r = regions(s);
  return (
    r !== null &&
    r.hold === 'off' &&
    r.them === 'present' &&
    r.park === 'idle' &&
    r.transfer === 'idle' &&
    !isMuted(s!) &&
    s!.matches({ open: { link: 'connected' } }) &&
    s!.context.digits === ''
  );
}
const DISCONNECTED: Effect = { type: 'call.disconnected' };

function enabled(w: World): Action[] {
  const { a, b } = w;
  if (a === null) return ['dial', 'dialStalled', 'dialNobody'];
  if (w.aStalled || w.bStalled) return live(a) ? ['callerHangsUp'] : [];
  if (w.bPrompt) return ['allowMic', 'blockMic', 'callerHangsUp', 'calleeHangsUp'];
  // Transferred (Bob gone): Cat rings or talks to Ann.
  if (!live(b) && w.cat === 'ringing') return ['catAnswers', 'callerHangsUp'];
  if (!live(b) && w.cat === 'talking') return ['callerHangsUp'];
  if (regions(b)?.transfer === 'consulting')
    return w.cat === 'ringing'
      ? ['catAnswersConsult', 'catDeclines', 'cancelB', 'hangUpConsultingB']
      : [
          'completeB',
          'completeAnswerFirstB',
          'completeFailsB',
          'cancelB',
          'cancelAnswerFirstB',
          'cancelFailsB',
          'catHangsUp',
          'hangUpConsultingB',
        ];
  // Held or parked: only what ends those states.
  if (regions(b)?.hold === 'onHold')
    return ['resumeB', 'resumeFailsB', 'holdRefusedA', 'callerHangsUp', 'calleeHangsUp'];
  if (regions(a)?.them === 'holdingUs') return ['callerHangsUp'];
  if (plain(a) && plain(b) && !w.aCut)
    return [
      ...offered(w),
      'holdB',
      'parkB',
      'parkAnswerFirstB',
      'parkFailsB',
      'transferBlindB',
      'transferBlindAnswerFirstB',
      'transferFailsB',
      'consultB',
    ];
  return offered(w);
}

/** The actions of a call without hold or park. */
function offered(w: World): Action[] {
  const { a, b } = w;
  const out: Action[] = [];
  if (ringingHere(b) && live(a)) {
    out.push('accept', 'acceptPrompt', 'acceptStalled', 'reject', 'takeOver', 'ringOut');
  }
  if (isOpen(a)) {
    out.push(isMuted(a) ? 'unmuteA' : 'muteA');
    if (!w.aCut && a.context.digits === '') out.push('digitsA');
    out.push(w.aCut ? 'restoreA' : 'cutA');
  }
  if (isOpen(b)) {
    out.push(isMuted(b) ? 'unmuteB' : 'muteB');
    if (b.context.digits === '') out.push('digitsB');
    out.push('calleeHangsUp');
  }
  if (live(a) && !w.aCut) out.push('callerHangsUp');
  return out;
}

/** What an action makes each side's call machine take, and the world's network after it. */
function effects(w: World, action: Action): { a: Effect[]; b: Effect[]; set?: Partial<World> } {
  switch (action) {
    case 'dial':
      return { a: [{ type: 'init' }, { type: 'call.ringing' }], b: [{ type: 'init' }] };
    case 'dialStalled':
      return { a: [{ type: 'init' }], b: [{ type: 'init' }], set: { aStalled: true } };
    case 'dialNobody':
      // The app refuses Ann's call: Twilio tells her SDK nothing before the refusal (no `ringing`:
      // that comes only once a <Dial> rings someone, server/twins/voice/twiml/call.ts ringCaller).
      return {
        a: [{ type: 'init' }, error(31603, NO_EXTENSION), DISCONNECTED],
        b: [],
      };
    case 'accept':
      return {
        a: [{ type: 'call.accepted' }],
        b: [{ type: 'call.accept' }, { type: 'call.accepted' }],
      };
    case 'acceptPrompt':
      return { a: [], b: [{ type: 'call.accept' }], set: { bPrompt: true } };
    case 'allowMic':
      return {
        a: [{ type: 'call.accepted' }],
        b: [{ type: 'call.accepted' }],
        set: { bPrompt: false },
      };
    case 'blockMic':
      return {
        a: [error(31603, DECLINED), DISCONNECTED],
        b: [error(31401, 'Permission denied'), DISCONNECTED],
        set: { bPrompt: false },
      };
    case 'acceptStalled':
      return {
        a: [],
        b: [{ type: 'call.accept' }, { type: 'call.accepted' }],
        set: { bStalled: true },
      };
    case 'reject':
      return { a: [error(31603, DECLINED), DISCONNECTED], b: [{ type: 'call.reject' }] };
    case 'takeOver':
      return { a: [error(31603, DECLINED), DISCONNECTED], b: [{ type: 'call.hangUp' }] };
    case 'ringOut':
      return { a: [], b: [{ type: RING_TIMEOUT }] };
    case 'callerHangsUp': {
      const b: Effect[] = !live(w.b)
        ? []
        : isOpen(w.b) && !w.bStalled
          ? [DISCONNECTED]
          : [{ type: 'call.cancelled' }];
      return {
        a: [{ type: 'call.hangUp' }],
        b,
        set: { aStalled: false, bStalled: false, bPrompt: false, cat: 'none' },
      };
    }
    case 'calleeHangsUp': {
      const a: Effect[] = w.bPrompt
        ? [error(31603, DECLINED), DISCONNECTED]
        : w.aCut
          ? []
          : [DISCONNECTED];
      return { a, b: [{ type: 'call.hangUp' }], set: { bPrompt: false } };
    }
    case 'muteA':
      return { a: [{ type: 'call.mute' }], b: [] };
    case 'unmuteA':
      return { a: [{ type: 'call.unmute' }], b: [] };
    case 'muteB':
      return { a: [], b: [{ type: 'call.mute' }] };
    case 'unmuteB':
      return { a: [], b: [{ type: 'call.unmute' }] };
    case 'digitsA':
      return { a: [{ type: 'call.digits', digits: '5' }], b: [] };
    case 'digitsB':
      return { a: [], b: [{ type: 'call.digits', digits: '5' }] };
    case 'cutA':
      return { a: [{ type: 'call.reconnecting' }], b: [], set: { aCut: true } };
    case 'restoreA':
      return {
        a: live(w.b)
          ? [{ type: 'call.reconnected' }]
          : [error(31209, 'This call has ended.'), DISCONNECTED],
        b: [],
        set: { aCut: false },
      };
    case 'holdB':
      return { a: [{ type: 'call.heldByThem' }], b: [{ type: 'call.hold' }, done('hold')] };
    case 'resumeB':
      return { a: [{ type: 'call.resumedByThem' }], b: [{ type: 'call.resume' }, done('resume')] };
    case 'holdRefusedA':
      return { a: [{ type: 'call.hold' }, failed('hold', HELD_BY_THEM)], b: [] };
    case 'resumeFailsB':
      return { a: [], b: [{ type: 'call.resume' }, failed('resume', UNREACHABLE)] };
    case 'parkB':
      return { a: [{ type: 'call.heldByThem' }], b: [{ type: 'call.park' }, DISCONNECTED] };
    case 'parkAnswerFirstB':
      return { a: [{ type: 'call.heldByThem' }], b: [{ type: 'call.park' }, done('park')] };
    case 'parkFailsB':
      return { a: [], b: [{ type: 'call.park' }, failed('park', UNREACHABLE)] };
    case 'transferBlindB':
      return { a: [HELD], b: [TRANSFER('blind'), DISCONNECTED], set: { cat: 'ringing' } };
    case 'transferBlindAnswerFirstB':
      return { a: [HELD], b: [TRANSFER('blind'), done('transfer')], set: { cat: 'ringing' } };
    case 'transferFailsB':
      return { a: [], b: [TRANSFER('blind', 'Nobody Here'), failed('transfer', NOBODY)] };
    case 'catAnswers':
      return { a: [RESUMED], b: [], set: { cat: 'talking' } };
    case 'consultB':
      return { a: [HELD], b: [TRANSFER('consult'), done('transfer')], set: { cat: 'ringing' } };
    case 'catAnswersConsult':
      return { a: [], b: [{ type: 'call.consultAnswered' }], set: { cat: 'talking' } };
    case 'catDeclines':
      return { a: [RESUMED], b: [consultEnded('cat declined.')], set: { cat: 'none' } };
    case 'catHangsUp':
      return { a: [RESUMED], b: [consultEnded('cat hung up.')], set: { cat: 'none' } };
    case 'completeB':
      return { a: [RESUMED], b: [{ type: 'call.completeTransfer' }, DISCONNECTED] };
    case 'completeAnswerFirstB':
      return { a: [RESUMED], b: [{ type: 'call.completeTransfer' }, done('completeTransfer')] };
    case 'completeFailsB':
      return {
        a: [],
        b: [{ type: 'call.completeTransfer' }, failed('completeTransfer', UNREACHABLE)],
      };
    case 'cancelB':
      return {
        a: [RESUMED],
        b: [{ type: 'call.cancelTransfer' }, consultEnded(CANCELLED)],
        set: { cat: 'none' },
      };
    case 'cancelAnswerFirstB':
      return {
        a: [RESUMED],
        b: [{ type: 'call.cancelTransfer' }, done('cancelTransfer')],
        set: { cat: 'none' },
      };
    case 'cancelFailsB':
      return {
        a: [],
        b: [{ type: 'call.cancelTransfer' }, failed('cancelTransfer', UNREACHABLE)],
      };
    case 'hangUpConsultingB':
      // Once Cat is in, hanging up hands Ann over; before, it ends the call for Ann too.
      return w.cat === 'talking'
        ? { a: [RESUMED], b: [{ type: 'call.hangUp' }] }
        : { a: [DISCONNECTED], b: [{ type: 'call.hangUp' }], set: { cat: 'none' } };
  }
}

function next(side: Side, snap: Snap | null, effect: Effect): Snap {
  if (effect.type === 'init') return getInitialSnapshot(callMachine, input(side));
  if (!snap) throw new Error(`${effect.type} before the ${side} call exists`);
  return getNextSnapshot(callMachine, snap, effect as never);
}

function apply(w: World, action: Action): World {
  const { a, b, set } = effects(w, action);
  return {
    ...w,
    ...set,
    a: a.reduce<Snap | null>((s, e) => next('a', s, e), w.a),
    b: b.reduce<Snap | null>((s, e) => next('b', s, e), w.b),
  };
}

const INITIAL: World = {
  a: null,
  b: null,
  aCut: false,
  aStalled: false,
  bStalled: false,
  bPrompt: false,
  cat: 'none',
};

const key = (w: World) =>
  JSON.stringify([
    [w.a?.value, w.a?.status, w.a?.context.digits],
    [w.b?.value, w.b?.status, w.b?.context.digits],
    w.aCut,
    w.aStalled,
    w.bStalled,
    w.bPrompt,
    w.cat,
    w.b?.context.transfer?.answered ?? null,
  ]);

/** The call machines fed an action's events, recording coverage. */
class Shadow {
  private readonly clock = new SimulatedClock();
  private readonly actors: Partial<Record<Side, Actor<typeof callMachine>>> = {};
  constructor(private readonly coverage: Coverage) {}

  feed(side: Side, effect: Effect): void {
    if (effect.type === 'init') {
      this.actors[side] = createActor(callMachine, {
        clock: this.clock,
        input: input(side),
        inspect: this.coverage.inspect,
      }).start();
    } else if (effect.type === RING_TIMEOUT) {
      this.clock.increment(RING_TIMEOUT_MS);
    } else {
      this.actors[side]!.send(effect);
    }
  }

  stop(): void {
    for (const actor of Object.values(this.actors)) actor.stop();
  }
}

/** The edges a sequence takes: each call's state, the event, and the state it leads to. */
function edgesOf(actions: Action[]): Set<string> {
  const edges = new Set<string>();
  let w = INITIAL;
  for (const action of actions) {
    const effect = effects(w, action);
    for (const side of ['a', 'b'] as const) {
      let s = w[side];
      for (const e of effect[side]) {
        // A consult's target answered or not takes different transitions from the same state.
        const before = s
          ? stateValueText(s.value) + (s.context.transfer?.answered ? ' (target in)' : '')
          : '(none)';
        s = next(side, s, e);
        edges.add(`${side}: ${before} --${e.type}--> ${stateValueText(s.value)}`);
      }
    }
    w = apply(w, action);
  }
  return edges;
}

const world: ActionWorld<World, Action> = { initial: INITIAL, enabled, apply, key, edgesOf };
const coverage = new Coverage(callMachine);
const plan = planPaths(world);

/** The chart coverage of the plan itself, from the machines fed each path's events. */
function plannedCoverage(): Coverage {
  const planned = new Coverage(callMachine);
  for (const path of plan.paths) {
    const shadow = new Shadow(planned);
    let w = INITIAL;
    for (const action of path) {
      const { a, b } = effects(w, action);
      for (const e of a) shadow.feed('a', e);
      for (const e of b) shadow.feed('b', e);
      w = apply(w, action);
    }
    shadow.stop();
  }
  return planned;
}

let server: RunningServer;
let browser: Awaited<ReturnType<typeof launchChromiumForVoice>>;
let ann: VoicePerson;
let bob: VoicePerson;
/** Bob's second tab, while it has taken the phone over. */
let bobTab: Page | null = null;
/** Cat, a transfer's target: a raw signalling socket with a werift phone (not a page). */
let cat: RawPerson;
/** Cat's frames before this index are dealt with; her call now, if any. */
let catSeen = 0;
let catCall: Frame | null = null;

async function catRings(): Promise<void> {
  catCall = await cat.next((f) => f.type === 'invite', catSeen, 20_000);
  catSeen = cat.frames.length;
}

/** Bob's card's Transfer form: `to`, then Transfer now or Talk first. */
async function transferFromBob(id: string | null, to: string, button: string): Promise<void> {
  await click(bob.page, id, 'Transfer');
  await card(bob.page, id!).getByLabel('Transfer to').fill(to);
  await card(bob.page, id!).getByRole('button', { name: button, exact: true }).click();
}

/**
 * Does `act` on Bob's page with the server's answer to `path` held back until `settled` holds (so
 * the server's own message or hangup reaches the page first).
 */
async function answerAfter(
  path: string,
  act: () => Promise<void>,
  settled: () => Promise<void>,
): Promise<void> {
  const pattern = `**/api/voice/calls/*/${path}`;
  let release = () => {};
  const released = new Promise<void>((r) => (release = r));
  let served: Promise<void> = Promise.resolve();
  await bob.page.route(pattern, (route) => {
    served = (async () => {
      const response = await route.fetch();
      await released;
      await route.fulfill({ response });
    })();
    return served;
  });
  await act();
  await settled();
  release();
  // Unrouting while the answer is still held would send the request to the server a second time
  // (Playwright continues a route in flight whose handler is removed), and the fulfil would throw.
  await served;
  await bob.page.unroute(pattern);
}

/** Clicks `label` on Bob's card with his downlink held until `settled` holds (the answer first). */
/** Does `act` with Bob's downlink held until `settled` holds (the server's answer first). */
async function answerFirst(act: () => Promise<void>, settled: () => Promise<void>) {
  bob.proxy.hold('down');
  try {
    await act();
    await settled();
  } finally {
    bob.proxy.release('down');
  }
}

const transferIdle = (id: string) =>
  bob.page
    .locator(`[data-testid="call-card"][data-call-id="${id}"][data-state*="open.transfer.idle"]`)
    .waitFor();
let steps = 0;
let started = 0;

beforeAll(async () => {
  started = Date.now();
  server = await startServer({ env: { SWITCHBOARD_VOICE_RING_SECONDS: String(RING_SECONDS) } });
  browser = await launchChromiumForVoice();
  ann = await openVoicePerson(browser, server, 'Ann');
  // Bob's page clock can be moved on, so his call rings out without 30 real seconds.
  bob = await openVoicePerson(browser, server, 'Bob', '/history', { movableClock: true });
  cat = await rawPerson(server.url, 'cat@example.com');
});

afterAll(async () => {
  console.log(
    `[model] call in Chromium: ${plan.paths.length} paths (${plan.edges.size} state-event edges ` +
      `of the two calls), ${steps} steps, ` +
      `${Math.round((Date.now() - started) / 1000)} s; states ${coverage.states.size}/${coverage.allStates.size}; ` +
      `transitions ${coverage.transitions.size}/${coverage.allTransitions.size}`,
  );
  await browser?.close();
  for (const p of [ann, bob]) await p?.proxy.close();
  cat?.close();
  await closeLegs();
  await server?.stop();
  server?.cleanup();
});

/** Which call card each side's call is, and how much of its state log has been checked. */
interface Tracked {
  id: string | null;
  checked: number;
}

const card = (page: Page, id: string) =>
  page.locator(`[data-testid="call-card"][data-call-id="${id}"]`);

/** Clicks the call's control named `name`; `pressed` for a toggle that is on (Mute, Hold). */
async function click(
  page: Page,
  id: string | null,
  name: string,
  pressed?: boolean,
): Promise<void> {
  if (id === null) throw new Error(`no call to click ${name} on`);
  await card(page, id)
    .getByRole('button', { name, exact: true, ...(pressed === undefined ? {} : { pressed }) })
    .click();
}

async function dialFromAnn(to: string): Promise<void> {
  await ann.page.getByTestId('dial-input').fill(to);
  await ann.page.getByRole('button', { name: 'Call', exact: true }).click();
}

async function pressKey(page: Page, id: string | null): Promise<void> {
  await click(page, id, 'Keypad');
  await card(page, id!)
    .getByRole('group', { name: 'Keypad' })
    .getByRole('button', { name: '5' })
    .click();
}

/** Does in the real app what `action` stands for. */
async function perform(action: Action, ids: Record<Side, Tracked>): Promise<void> {
  const [a, b] = [ids.a.id, ids.b.id];
  switch (action) {
    case 'dial':
      return dialFromAnn(bob.email);
    case 'dialStalled':
      ann.proxy.hold('down');
      return dialFromAnn(bob.email);
    case 'dialNobody':
      return dialFromAnn('199');
    case 'accept':
      return click(bob.page, b, 'Accept');
    case 'acceptPrompt':
      await holdMicPrompt(bob.page);
      await click(bob.page, b, 'Accept');
      await expect.poll(() => micPromptsWaiting(bob.page)).toBe(1);
      return;
    case 'allowMic':
      return answerMicPrompt(bob.page, bob.context, 'allow');
    case 'blockMic':
      return answerMicPrompt(bob.page, bob.context, 'block');
    case 'acceptStalled':
      bob.proxy.hold('up');
      return click(bob.page, b, 'Accept');
    case 'reject':
      return click(bob.page, b, 'Reject');
    case 'takeOver':
      bobTab = await bob.openTab();
      await waitForPhone(bobTab, 'follower');
      await bobTab.getByRole('button', { name: 'Use the phone here' }).click();
      return;
    case 'ringOut':
      // The app gives up after RING_TIMEOUT_MS; the server would ring on for RING_SECONDS. Bob's
      // page clock moves on RING_STEP_MS at a time, each step as soon as the server's next message
      // (its heartbeat, every 5 s) reaches his page: the SDK takes 15 s of its clock without a
      // message for a dead socket, so each step leaves it 15 s - RING_STEP_MS for the next one,
      // whenever in the heartbeat's period the step is taken and however slow the machine is.
      for (let moved = 0; moved < RING_TIMEOUT_MS; moved += RING_STEP_MS) {
        await bob.proxy.nextDown();
        await bob.page.clock.fastForward(Math.min(RING_STEP_MS, RING_TIMEOUT_MS - moved));
      }
      return;
    case 'callerHangsUp':
      return click(ann.page, a, 'Hang up');
    case 'calleeHangsUp':
      return click(bob.page, b, 'Hang up');
    case 'muteA':
      return click(ann.page, a, 'Mute');
    case 'unmuteA':
      return click(ann.page, a, 'Mute', true);
    case 'muteB':
      return click(bob.page, b, 'Mute');
    case 'unmuteB':
      return click(bob.page, b, 'Mute', true);
    case 'digitsA':
      return pressKey(ann.page, a);
    case 'digitsB':
      return pressKey(bob.page, b);
    case 'cutA':
      ann.proxy.drop({ refuse: true });
      return;
    case 'restoreA':
      ann.proxy.restore();
      return;
    case 'holdB':
      return click(bob.page, b, 'Hold');
    case 'resumeB':
      return click(bob.page, b, 'Hold', true);
    case 'holdRefusedA':
      await click(ann.page, a, 'Hold');
      await card(ann.page, a!)
        .getByTestId('call-problem')
        .filter({ hasText: HELD_BY_THEM })
        .waitFor();
      return;
    case 'resumeFailsB':
      return unreachable(b, 'resume', 'Hold', true);
    case 'parkFailsB':
      return unreachable(b, 'park', 'Park');
    case 'parkB':
      // The server's answer waits until its hangup of Bob's leg has ended his card.
      return answerAfter(
        'park',
        () => click(bob.page, b, 'Park'),
        () => endedCard(bob.page, b!),
      );
    case 'parkAnswerFirstB':
      // The hangup of Bob's leg waits in his downlink until the answer has ended his card.
      return answerFirst(
        () => click(bob.page, b, 'Park'),
        () => endedCard(bob.page, b!),
      );
    case 'transferBlindB':
      await answerAfter(
        'transfer',
        () => transferFromBob(b, 'cat', 'Transfer now'),
        () => endedCard(bob.page, b!),
      );
      return catRings();
    case 'transferBlindAnswerFirstB':
      await answerFirst(
        () => transferFromBob(b, 'cat', 'Transfer now'),
        () => endedCard(bob.page, b!),
      );
      return catRings();
    case 'transferFailsB':
      await transferFromBob(b, 'Nobody Here', 'Transfer now');
      await card(bob.page, b!).getByTestId('call-problem').filter({ hasText: NOBODY }).waitFor();
      return;
    case 'catAnswers':
      await answerTo(cat, catCall!);
      return;
    case 'consultB':
      await transferFromBob(b, 'cat', 'Talk first');
      return catRings();
    case 'catAnswersConsult':
      await answerTo(cat, catCall!);
      await card(bob.page, b!).getByText('Talking to cat.').waitFor();
      return;
    case 'catDeclines':
      cat.send('reject', { callsid: catCall!.payload.callsid });
      return;
    case 'catHangsUp':
      cat.send('hangup', { callsid: catCall!.payload.callsid });
      return;
    case 'completeB':
      return answerAfter(
        'transfer/complete',
        () => click(bob.page, b, 'Complete transfer'),
        () => endedCard(bob.page, b!),
      );
    case 'completeAnswerFirstB':
      return answerFirst(
        () => click(bob.page, b, 'Complete transfer'),
        () => endedCard(bob.page, b!),
      );
    case 'completeFailsB':
      return unreachable(b, 'transfer/complete', 'Complete transfer');
    case 'cancelB':
      return answerAfter(
        'transfer/cancel',
        () => click(bob.page, b, 'Cancel transfer'),
        () => transferIdle(b!),
      );
    case 'cancelAnswerFirstB':
      return answerFirst(
        () => click(bob.page, b, 'Cancel transfer'),
        () => transferIdle(b!),
      );
    case 'cancelFailsB':
      return unreachable(b, 'transfer/cancel', 'Cancel transfer');
    case 'hangUpConsultingB':
      return click(bob.page, b, 'Hang up');
  }
}

const endedCard = (page: Page, id: string) =>
  page.locator(`[data-testid="call-card"][data-call-id="${id}"][data-status="ended"]`).waitFor();

/** `Label` clicked while the server cannot be reached: its request is answered 503 once. */
async function unreachable(
  id: string | null,
  path: string,
  label: string,
  pressed?: boolean,
): Promise<void> {
  const pattern = `**/api/voice/calls/*/${path}`;
  await bob.page.route(pattern, (route) =>
    route.fulfill({
      status: 503,
      contentType: 'application/json',
      body: JSON.stringify({ error: { code: 'upstream_error', message: UNREACHABLE } }),
    }),
  );
  try {
    await click(bob.page, id, label, pressed);
    await card(bob.page, id!)
      .getByTestId('call-problem')
      .filter({ hasText: UNREACHABLE })
      .waitFor();
  } finally {
    await bob.page.unroute(pattern);
  }
}

/** After a step: lets go of whatever the world no longer holds (stalls, the prompt, a cut). */
async function settleNetwork(w: World): Promise<void> {
  if (!w.aStalled) ann.proxy.release('down');
  if (!w.bStalled) bob.proxy.release('up');
  if (!w.aCut) ann.proxy.restore();
  if (!w.bPrompt) await answerMicPrompt(bob.page, bob.context, 'allow');
  await bob.context.grantPermissions(['microphone']);
}

/** The distinct states `events` take a call through, from `before`. */
function expectedStates(side: Side, before: Snap | null, events: Effect[]): string[] {
  const states: string[] = [];
  let s = before;
  let last = before ? stateValueText(before.value) : null;
  for (const e of events) {
    s = next(side, s, e);
    const text = stateValueText(s.value);
    if (text !== last) states.push(text);
    last = text;
  }
  return states;
}

/** Finds the card of a call that has just appeared on the page. */
async function newCallId(page: Page, known: Set<string>): Promise<string> {
  let id: string | undefined;
  await expect
    .poll(
      async () => {
        id = (await readStateLog(page)).find(
          (e) => e.key !== 'phone-status' && !known.has(e.key),
        )?.key;
        return id !== undefined;
      },
      { timeout: 15_000, interval: 100 },
    )
    .toBe(true);
  known.add(id!);
  return id!;
}

async function checkSide(
  person: VoicePerson,
  tracked: Tracked,
  known: Set<string>,
  expected: string[],
  model: Snap | null,
  where: string,
  timeout: number,
): Promise<void> {
  if (expected.length === 0) {
    if (tracked.id !== null) {
      const seen = await statesOf(person.page, tracked.id);
      expect(seen.slice(tracked.checked), `${where}: ${person.name}'s call stays`).toEqual([]);
    }
    return;
  }
  tracked.id ??= await newCallId(person.page, known);
  const seen = await waitForStates(
    person.page,
    tracked.id,
    tracked.checked + expected.length,
    expected.at(-1)!,
    timeout,
  );
  expect(seen.slice(tracked.checked), `${where}: ${person.name}'s call`).toEqual(expected);
  tracked.checked = seen.length;
  if (model?.status === 'done') {
    // An end the SDK gives no sentence for shows the history row's once it is written (a moment
    // later on a busy machine: Twilio's status callbacks come first).
    const ended = card(person.page, tracked.id).getByTestId('call-ended');
    await expect
      .poll(async () => ((await ended.textContent()) ?? '').replace(/ \(\d+:\d\d\)$/, ''), {
        message: `${where}: why ${person.name}'s call ended`,
        timeout: 10_000,
      })
      .toBe(selectCallEndText(model));
  }
  if (model && model.context.digits !== '') {
    const shown = card(person.page, tracked.id)
      .getByRole('group', { name: 'Keypad' })
      .locator('output');
    if ((await shown.count()) > 0) expect(await shown.textContent()).toBe(model.context.digits);
  }
}

/** Every call card either page has shown so far, by call id. */
const known = new Set<string>();

/** Back to no calls and two registered phones, whatever the path left. */
async function reset(): Promise<void> {
  await settleNetwork(INITIAL);
  catSeen = cat.frames.length;
  catCall = null;
  if (bobTab) {
    await bobTab.close();
    bobTab = null;
  }
  // Hang up only with both phones connected: a hang-up sent while the signalling is down would
  // leave the other side waiting for the service's reconnect window.
  for (const person of [ann, bob]) await waitForPhone(person.page, REGISTERED);
  for (const person of [ann, bob]) {
    const hangUp = person.page
      .locator('[data-testid="call-card"]:not([data-status="ended"])')
      .getByRole('button', { name: 'Hang up', exact: true });
    // Ann's hang-up often ends Bob's card before his button is clicked: give up on it quickly.
    for (const button of await hangUp.all())
      await button.click({ timeout: 2_000 }).catch(() => undefined);
  }
  for (const person of [ann, bob]) {
    await expect
      .poll(
        () => person.page.locator('[data-testid="call-card"]:not([data-status="ended"])').count(),
        { timeout: 20_000 },
      )
      .toBe(0);
    const dismiss = person.page.getByRole('button', { name: 'Dismiss' });
    while ((await dismiss.count()) > 0) await dismiss.first().click();
    for (const entry of await readStateLog(person.page)) known.add(entry.key);
  }
}

/** Steps slower than this are reported, with their time. */
const SLOW_MS = 5_000;

async function timed<T>(what: string, work: () => Promise<T>): Promise<T> {
  const t0 = Date.now();
  const result = await work();
  if (Date.now() - t0 > SLOW_MS) console.log(`[model] slow: ${what} took ${Date.now() - t0} ms`);
  return result;
}

async function walk(path: Action[]): Promise<void> {
  await timed('reset', reset);
  const shadow = new Shadow(coverage);
  const ids: Record<Side, Tracked> = { a: { id: null, checked: 0 }, b: { id: null, checked: 0 } };
  let w = INITIAL;
  try {
    for (const [i, action] of path.entries()) {
      const where = path.slice(0, i + 1).join(' > ');
      const effect = effects(w, action);
      const after = apply(w, action);
      const expected = {
        a: expectedStates('a', w.a, effect.a),
        b: expectedStates('b', w.b, effect.b),
      };
      await timed(`${where} (action)`, () => perform(action, ids));
      const timeout = action === 'ringOut' ? RING_TIMEOUT_MS + 15_000 : 20_000;
      // The side that changes first; the other is then checked to have stayed, or to have moved.
      const order: Side[] = expected.a.length === 0 ? ['b', 'a'] : ['a', 'b'];
      for (const side of order) {
        await timed(`${where} (${side})`, () =>
          checkSide(
            side === 'a' ? ann : bob,
            ids[side],
            known,
            expected[side],
            after[side],
            where,
            timeout,
          ),
        );
      }
      for (const e of effect.a) shadow.feed('a', e);
      for (const e of effect.b) shadow.feed('b', e);
      steps += 1;
      coverage.steps += 1;
      await settleNetwork(after);
      w = after;
    }
  } finally {
    shadow.stop();
    coverage.paths += 1;
  }
}

describe('call machine, model-based, in Chromium', () => {
  it('plans every state and transition of the chart', () => {
    const planned = plannedCoverage();
    expect(planned.missingStates()).toEqual([]);
    expect(planned.missingTransitions()).toEqual([]);
  });

  it.each(plan.paths.map((p): [string, Action[]] => [p.join(' > '), p]))(
    '%s',
    (_name, path) => walk(path),
    RING_TIMEOUT_MS + 60_000,
  );

  it('walked every state and transition of the chart, with no page error', () => {
    expect(coverage.missingStates()).toEqual([]);
    expect(coverage.missingTransitions()).toEqual([]);
    expect([...ann.errors, ...bob.errors]).toEqual([]);
  });
});
