/**
 * The calls the twin runs for a TwiML application, as records: a call placed by a browser (the
 * parent), a `<Dial><Client>` leg ringing or bridged (a {@link Fork}), and a dialled leg that a
 * redirect made a call of its own (an {@link AppCall} with a `ParentCallSid`). What their TwiML does
 * is leg.ts; their lifetime (a run, a redirect's new run, the end) is application.ts.
 */
import type { MediaLeg } from '../media';
import type { Conn, VoiceState } from '../model';
import { send } from '../signalling';
import type { TwinCall } from '../rest/resources';
import type { AppMode } from './application';
import { statusReporter, type FinalStatus, type StatusReporter } from './status';

/** What a call's running TwiML is, seen from outside: a redirect stops it. */
export interface CallRun {
  /** Stops the verb running now and every later one (the call itself stays up). */
  stop(): void;
}

/** A call run by the application's TwiML: a browser's call, or a dialled leg redirected. */
export interface AppCall {
  sid: string;
  /** The SDK's own first id for the call (errors before it heard `sid` go there). */
  tempSid: string;
  conn: Conn;
  identity: string;
  leg: MediaLeg | null;
  /** The fields every webhook of the call carries. */
  fields: Record<string, string>;
  answered: boolean;
  ended: boolean;
  /** Why the call ended, when it was not a plain hang-up (`<Reject>`). */
  endStatus: FinalStatus | null;
  hungUpByCaller: boolean;
  startedAt: number;
  answeredAt: number | null;
  /** Run once when the call ends: whatever waits on it stops. */
  readonly enders: Set<() => void>;
  /** The TwiML run driving the call now; a redirect stops it and starts another. */
  run: CallRun | null;
  /** The token its SDK was given to resume it (`invite` with `reconnect`), when it was rung. */
  reconnect?: string;
}

/**
 * A call ringing one identity's devices: a `<Client>` of a `<Dial>` (a child of `parent`), or a call
 * placed through the REST API (no parent).
 */
export interface Fork {
  sid: string;
  parent: AppCall | null;
  identity: string;
  /** The child call's `From` (the `<Dial callerId>`, else the parent's). */
  from: string;
  /** The token its devices' `invite` carried (they resume the call with it), and the SDP offered. */
  reconnect: { token: string; sdp: string };
  devices: Set<Conn>;
  status: StatusReporter;
  /** The device that answered, once bridged. */
  answeredBy: Conn | null;
  answeredAt: number | null;
  /** Told of the fork's devices' answers, declines and hang-ups. */
  onAnswer(conn: Conn, sdp: string): void;
  onGone(conn: Conn, declined: boolean): void;
  /**
   * A redirect of the answered leg: it leaves the bridge (the parent's `<Dial>` ends `completed`)
   * and keeps its media leg, handed over here; null when it is not bridged.
   */
  takeOver(): MediaLeg | null;
  /** Stops the ringing, as `Status=canceled` asks (a `<Dial>`'s legs are hung up by `onGone`). */
  cancel?(): void;
}

export const app = (vs: VoiceState): AppMode => vs.app!;

/** The registry forgets a call a minute after it is placed and over (REST reads of it 404 then). */
export function forget(vs: VoiceState, callSid: string): void {
  const timer = setInterval(() => {
    const listed = vs.app?.registry.calls.get(callSid);
    if (listed && listed.ended === null) return;
    vs.app?.registry.calls.delete(callSid);
    clearInterval(timer);
  }, 60_000);
  timer.unref();
}

/**
 * Keeps `leg`'s media totals as it closes, as the Call Summary of call `callSid` (`identity`'s
 * browser leg; rest/insights.ts).
 */
export function keepSummary(
  vs: VoiceState,
  callSid: string,
  identity: string,
  leg: MediaLeg,
): void {
  const mode = app(vs);
  leg.onState((state) => {
    if (state === 'closed')
      mode.summaries.keep(callSid, {
        accountSid: mode.application.accountSid,
        identity,
        totals: leg.totals(),
      });
  });
}

/** A leg's status callbacks, with the REST registry's call kept in step. */
export function tracked(
  vs: VoiceState,
  listed: TwinCall,
  ...args: Parameters<typeof statusReporter>
): StatusReporter {
  const reporter = statusReporter(...args);
  const registry = app(vs).registry;
  return {
    ...reporter,
    answered() {
      registry.setStatus(listed, 'in-progress');
      reporter.answered();
    },
    ended(status, seconds) {
      registry.setStatus(listed, status);
      reporter.ended(status, seconds);
    },
  };
}

/** Ends the call for whoever waits on it (a hang-up, a lost socket, the TwiML's end). */
export function endAppCall(call: AppCall): void {
  if (call.ended) return;
  call.ended = true;
  for (const stop of [...call.enders]) stop();
  call.enders.clear();
}

/** Resolves once the call has ended. */
export const untilEnded = (call: AppCall): Promise<void> =>
  new Promise((resolve) => {
    if (call.ended) resolve();
    else call.enders.add(resolve);
  });

/** Answers the caller's SDK (once): its call turns open. */
export function answerCall(vs: VoiceState, call: AppCall): void {
  if (call.answered || call.ended || !call.leg) return;
  call.answered = true;
  call.answeredAt = vs.now();
  call.fields.CallStatus = 'in-progress';
  const listed = app(vs).registry.calls.get(call.sid);
  if (listed) app(vs).registry.setStatus(listed, 'in-progress');
  send(vs, call.conn, 'answer', {
    callsid: call.sid,
    sdp: call.leg.localSdp,
    ...(call.reconnect === undefined ? {} : { reconnect: call.reconnect }),
  });
}

/** Hangs the call up: its SDK is told, and the call ends. */
export function hangUpCall(vs: VoiceState, call: AppCall): void {
  if (call.ended) return;
  send(vs, call.conn, 'hangup', { callsid: call.sid });
  endAppCall(call);
}

/**
 * A leg a device answered (a `<Dial><Client>` leg taken over by a redirect, a call placed through
 * the API) as a call of its own, in progress since `answeredAt`, its webhooks carrying `fields`.
 */
export function answeredCall(
  legSid: string,
  conn: Conn,
  identity: string,
  leg: MediaLeg,
  fields: Record<string, string>,
  answeredAt: number,
  reconnect?: string,
): AppCall {
  return {
    sid: legSid,
    tempSid: legSid,
    conn,
    identity,
    leg,
    fields: { ...fields, CallStatus: 'in-progress', ApiVersion: '2010-04-01' },
    answered: true,
    ended: false,
    endStatus: null,
    hungUpByCaller: false,
    startedAt: answeredAt,
    answeredAt,
    enders: new Set(),
    run: null,
    ...(reconnect === undefined ? {} : { reconnect }),
  };
}

/** Takes a device's answer on `leg`; false (the device told, the leg not connected) when refused. */
export async function acceptAnswer(
  vs: VoiceState,
  conn: Conn,
  legSid: string,
  leg: MediaLeg,
  sdp: string,
): Promise<boolean> {
  try {
    await leg.accept(sdp);
    return true;
  } catch (err) {
    vs.log(`voice twin: the answer to ${legSid} was refused: ${String(err)}`);
    send(vs, conn, 'hangup', {
      callsid: legSid,
      error: { code: 31000, message: 'The call could not be connected.' },
    });
    return false;
  }
}
