/**
 * The live calls control.ts changes, by every leg's CallSid: who is on each (two sides talking, one
 * parked or ringing someone), how they are joined (a `<Dial>`'s parent and child, or a conference),
 * who holds, what is parked, and the TwiML a moved child's parent gets at its `<Dial>`'s action.
 * Legs answered and ended (the webhooks' status callbacks) keep it in step; the first call's one
 * history row is written when the last leg of a changed call ends.
 */
import type { TrailStep } from '../../src/contracts/records/call';
import type { RingTurn } from '../../src/domain/routing/engine';
import { CallControlError } from './refusals';
import type { CallLog, CallState } from './call-log';

export interface Side {
  /** The leg's CallSid (the browser's id for its call). */
  sid: string;
  /** A colleague's identity, or null for an outside caller. */
  identity: string | null;
  name: string;
}

/** What the waiting side's leg rings: a ring-back, or a blind transfer's turn. */
export interface Ringing {
  purpose: 'ringBack' | 'transfer';
  /** Who rings now. */
  identities: readonly string[];
  /** Who is named in the reason when nobody answers (a colleague's or a group's name). */
  targetName: string;
  /** A group's turns still to ring, and the group. */
  turns: RingTurn[];
  group: { id: string; name: string } | null;
  /** Who gets the call back when nobody answers (the transferrer). */
  back: Side | null;
}

export interface Consult {
  /** The transferrer's leg. */
  by: string;
  /** Who the transferrer asked for: a colleague's or a ring group's name. */
  targetName: string;
  /** The ring group, or null for a colleague. */
  group: { id: string; name: string } | null;
  /** A group's turns still to ring (a colleague: none). */
  turns: RingTurn[];
  /** The calls placed and ringing now, by CallSid: whose browsers each rings. */
  ringing: Map<string, string>;
  /** Calls of the turn still being placed, one a second (consult.ts, Twilio's calls per second). */
  placing: boolean;
  /** Who answered (talks to the transferrer), once someone has. */
  identity: string | null;
  name: string;
  /** The conference the transferrer and the target talk in. */
  room: string;
  /** The answered call, once someone has answered. */
  callSid: string | null;
}

export interface Live {
  /** The first call's sid: its CallState carries the row. */
  id: string;
  /** Who is on the call now (two when talking, one when parked or ringing someone). */
  sides: Side[];
  /** Bridged by a `<Dial>`: the parent leg's sid (the other side is its child); null in a conference. */
  parent: string | null;
  /** The conference both legs are in, and whether it has started (they hear each other). */
  room: string | null;
  started: boolean;
  /** The holder's leg. */
  heldBy: string | null;
  parked: { by: string; byName: string; at: number; timer: NodeJS.Timeout } | null;
  /** Who the waiting side's leg rings, and who gets it back when nobody answers. */
  ringing: Ringing | null;
  /** An attended transfer: the transferrer's call to the target, waiting apart from the call. */
  consult: Consult | null;
  /** The TwiML a parent leg gets at its `<Dial>`'s action URL (its child was moved). */
  pending: Map<string, string>;
  /** Changes to one call run one after another. */
  queue: Promise<unknown>;
  /** A leg was given new TwiML: the call outlives its first leg, and its row waits for the last. */
  moved: boolean;
}

/** What a call's browser is told about who is on the other side: a colleague, or a number. */
export const partyMessage = (about: Pick<Side, 'identity' | 'name'>): Record<string, string> =>
  about.identity !== null
    ? { event: 'party', identity: about.identity, name: about.name }
    : { event: 'party', number: about.name };

export interface LiveCallsDeps {
  calls: CallLog;
  nameOf: (identity: string) => string;
  tell: (callSid: string, content: Record<string, unknown>) => void;
  /** Writes the first call's row (all its legs have ended). */
  finish: (state: CallState) => void;
  now: () => number;
  /** The parked side's leg ended: it leaves /hold. */
  unpark: (live: Live) => void;
  hangUp: (callSid: string) => void;
  /**
   * The transferrer's leg ended during an attended transfer (they hung up): the colleague, if in,
   * takes the call; otherwise the call ends (consult.ts).
   */
  transferrerGone: (live: Live, by: string) => void;
}

export type LiveCalls = ReturnType<typeof createLiveCalls>;

export function createLiveCalls(deps: LiveCallsDeps) {
  const { calls, now } = deps;
  const bySid = new Map<string, Live>();
  const joinedLegs = new Set<string>();
  /** Who waits for a leg to be reported answered (`known`), by its CallSid. */
  const awaited = new Map<string, Set<() => void>>();
  const wake = (callSid: string): void => {
    for (const done of awaited.get(callSid) ?? []) done();
    awaited.delete(callSid);
  };

  const stateOf = (live: Live): CallState | undefined => calls.get(live.id);
  const trail = (live: Live, step: TrailStep): void => {
    const state = stateOf(live);
    if (state && state.trail.length < 50) state.trail.push(step);
  };

  /** The caller's live call and which side they are; refused when it has ended or is not theirs. */
  function own(identity: string, callSid: string): { live: Live; me: Side; them: Side | null } {
    const live = bySid.get(callSid);
    const me = live?.sides.find((s) => s.sid === callSid);
    if (!live || !me) throw new CallControlError(404, 'no_such_call', 'This call has ended.');
    if (me.identity !== identity)
      throw new CallControlError(403, 'not_your_call', 'This call is not yours.');
    return { live, me, them: live.sides.find((s) => s !== me) ?? null };
  }

  function talking(live: Live, them: Side | null, what: string): Side {
    if (!them || live.parked || live.ringing)
      throw new CallControlError(409, 'not_answered', `Only a call in progress can be ${what}.`);
    if (live.consult)
      throw new CallControlError(
        409,
        'transfer_in_progress',
        'A transfer is under way: complete or cancel it first.',
      );
    return them;
  }

  /** Runs `work` after the call's earlier changes. */
  function serial<T>(live: Live, work: () => Promise<T>): Promise<T> {
    const run = live.queue.then(work, work);
    live.queue = run.catch(() => undefined);
    return run;
  }

  // A side on a phone (no identity) has no Voice SDK to tell: Twilio refuses a user-defined message
  // to a call not "associated with the Voice SDK"
  // (https://www.twilio.com/docs/voice/api/userdefinedmessage-resource).
  const tellHeld = (side: Side, by: string, event: 'held' | 'resumed'): void => {
    if (side.identity !== null) deps.tell(side.sid, { event, by });
  };

  const party = (to: Side, about: Side): void => {
    if (to.identity !== null) deps.tell(to.sid, partyMessage(about));
  };

  /**
   * The live call whose first leg is `id`, also when that leg has left it: it moved the call (the
   * caller parked it, transferred it or completed a consult) and left `bySid` then.
   */
  function byId(id: string): Live | null {
    for (const live of bySid.values()) if (live.id === id) return live;
    return null;
  }

  /** The leg's end in the call's bookkeeping; true when the call goes on without it. */
  function settle(callSid: string): boolean {
    const live = bySid.get(callSid);
    // The first leg's end, after it moved the call on (Twilio reports it `completed` once its
    // `<Dial>` hangs it up): the call's row waits for its last leg, as when the other side moves it.
    if (!live) return byId(callSid) !== null;
    if (!live.moved) {
      // A call nobody changed ends as Twilio reports it: the first call's end writes the row.
      for (const [sid, l] of bySid) if (l === live) bySid.delete(sid);
      return false;
    }
    bySid.delete(callSid);
    live.pending.delete(callSid);
    const wasParked = live.parked !== null && live.sides[0]?.sid === callSid;
    if (wasParked) deps.unpark(live);
    const leaving = live.sides.find((s) => s.sid === callSid);
    live.sides = live.sides.filter((s) => s.sid !== callSid);
    if (live.heldBy === callSid) live.heldBy = null;
    // A leg ringing someone (a ring-back, a transfer) that ends takes the ring with it.
    if (live.sides.length === 0) live.ringing = null;
    if (live.consult?.by === callSid && live.sides.length > 0 && leaving)
      deps.transferrerGone(live, leaving.identity ?? '');
    // Everyone of the call gone while a colleague was being consulted: their call ends too (they
    // would be left alone in the consult, or ringing for nobody).
    if (live.sides.length === 0 && live.consult) {
      const consult = live.consult;
      live.consult = null;
      for (const sid of [...consult.ringing.keys(), consult.callSid])
        if (sid !== null) deps.hangUp(sid);
    }
    // Alone in a conference that will not start (the holder hung up): the call is over.
    const alone = live.sides[0];
    if (live.sides.length === 1 && live.room !== null && !live.parked && !live.consult && alone)
      deps.hangUp(alone.sid);
    if (live.sides.length > 0 || live.parked || live.ringing) return true;
    for (const [sid, l] of bySid) if (l === live) bySid.delete(sid);
    const state = stateOf(live);
    // The first call's own end writes its row (the caller of `ended` does): the others here.
    if (state && callSid !== live.id) deps.finish(state);
    return callSid !== live.id && state !== undefined;
  }

  /**
   * Resolves once `callSid` is a leg of a call here, or after `ms`. Twilio reports an answer with a
   * status callback of its own, which may reach this server after the browser has its answer and
   * asks for a hold or a transfer: such a request waits for it rather than hear "not in progress".
   */
  function known(callSid: string, ms: number): Promise<void> {
    if (bySid.has(callSid)) return Promise.resolve();
    return new Promise((resolve) => {
      const waiters = awaited.get(callSid) ?? new Set<() => void>();
      awaited.set(callSid, waiters);
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0 && awaited.get(callSid) === waiters) awaited.delete(callSid);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      waiters.add(done);
    });
  }

  return {
    bySid,
    byId,
    known,
    /** `callSid` is a leg of a call here now: whoever waits for it goes on. */
    wake,
    own,
    talking,
    serial,
    trail,
    stateOf,
    tellHeld,
    party,
    /** `callSid` is a leg of another call (a pick-up): it gets no row of its own. */
    markJoined: (callSid: string): void => void joinedLegs.add(callSid),
    /** The first call's sid of the call `callSid` is a leg of (the row's), or null. */
    callOf: (callSid: string): string | null => bySid.get(callSid)?.id ?? null,
    /**
     * A `<Dial>` leg answered: a new call with two sides, or who took a ring-back or transfer. The
     * leg is a colleague's (`identity`, a `<Client>`) or a phone's (`identity` null, `number`: an
     * agent's `<Dial><Number>` to a customer), so a call to a phone is held, parked and transferred
     * as a call from one is.
     */
    answered(parentSid: string, legSid: string, identity: string | null, number: string): void {
      const existing = bySid.get(parentSid);
      const side: Side =
        identity !== null
          ? { sid: legSid, identity, name: deps.nameOf(identity) }
          : { sid: legSid, identity: null, name: number };
      if (existing) {
        // A ring-back or a transfer from the waiting leg: who took it is the other side now.
        const live = existing;
        const waiting = live.sides.find((s) => s.sid === parentSid);
        if (!waiting || !live.ringing) return;
        const { purpose, back } = live.ringing;
        live.ringing = null;
        live.sides = [waiting, side];
        live.parent = parentSid;
        live.room = null;
        bySid.set(legSid, live);
        wake(legSid);
        const state = stateOf(live);
        if (state) state.answeredBy = identity ?? number;
        if (purpose === 'transfer' && back?.identity)
          trail(live, {
            action: 'transferred',
            by: back.identity,
            to: identity ?? number,
            at: now(),
          });
        tellHeld(waiting, side.name, 'resumed');
        party(waiting, side);
        return;
      }
      const state = calls.get(parentSid);
      if (!state) return;
      const caller: Side =
        state.user !== ''
          ? { sid: parentSid, identity: state.user, name: deps.nameOf(state.user) }
          : { sid: parentSid, identity: null, name: state.from };
      const live: Live = {
        id: parentSid,
        sides: [caller, side],
        parent: parentSid,
        room: null,
        started: false,
        heldBy: null,
        parked: null,
        ringing: null,
        consult: null,
        pending: new Map(),
        queue: Promise.resolve(),
        moved: false,
      };
      bySid.set(parentSid, live);
      bySid.set(legSid, live);
      wake(parentSid);
      wake(legSid);
    },

    /**
     * A leg ended; true when no row is to be written for it now: its call goes on (the row waits
     * for the last leg), or it was a leg of another call (a pick-up).
     */
    ended(callSid: string): boolean {
      const joined = joinedLegs.delete(callSid);
      return settle(callSid) || joined;
    },

    /** TwiML kept for a parent leg whose child was moved, once. */
    pendingFor(callSid: string): string | null {
      const live = bySid.get(callSid);
      const twiml = live?.pending.get(callSid);
      if (!live || twiml === undefined) return null;
      live.pending.delete(callSid);
      return twiml;
    },
  };
}
