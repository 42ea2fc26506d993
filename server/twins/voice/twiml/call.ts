/**
 * The calls the twin runs for a TwiML application, as records: a call placed by a browser (the
 * parent), a `<Dial><Client>` leg ringing or bridged (a {@link Fork}), and a dialled leg that a
 * redirect made a call of its own (an {@link AppCall} with a `ParentCallSid`). What their TwiML does
 * is leg.ts; their lifetime (a run, a redirect's new run, the end) is application.ts.
 */
import type { MediaLeg } from '../media';
import type { Conn, VoiceState, AppCall } from '../model';
import { send } from '../wire';
import type { TwinCall } from '../rest/resources';
import { statusReporter, type StatusReporter } from './status';
import { type AppMode } from '../model';

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

/** A leg's status callbacks (over the twin's network), with the REST registry's call kept in step. */
export function tracked(
  vs: VoiceState,
  listed: TwinCall,
  callback: Parameters<typeof statusReporter>[0],
  fields: Parameters<typeof statusReporter>[1],
  webhooks: Parameters<typeof statusReporter>[2],
): StatusReporter {
  const reporter = statusReporter(callback, fields, webhooks, undefined, app(vs).network);
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

/**
 * The id the call's SDK knows it by: `sid` once a `ringing` or `answer` told it, its own `tempSid`
 * before (a `<Reject>`, a failure or a hang-up before anything rang is sent there, as Twilio does:
 * the SDK matches a `hangup` to `parameters.CallSid` or its outbound connection id).
 */
export const sdkSid = (call: AppCall): string => (call.sidTold ? call.sid : call.tempSid);

/**
 * A `<Dial>` of the call rings someone: the caller's SDK is told `ringing` with the CallSid and the
 * SDP (early media: it hears the ringback from now on), once, and only while not yet answered.
 * Twilio sends nothing before: a call answered at once (`<Say>`, `<Conference>`) hears `answer`
 * first, and one refused (`<Reject>`) only its `hangup`.
 */
export function ringCaller(vs: VoiceState, call: AppCall): void {
  if (call.answered || call.ended || call.sidTold || !call.leg || !call.conn) return;
  call.sidTold = true;
  send(vs, call.conn, 'ringing', { callsid: call.sid, sdp: call.leg.localSdp });
}

/** Answers the caller's SDK (once): its call turns open. */
export function answerCall(vs: VoiceState, call: AppCall): void {
  if (call.answered || call.ended || !call.leg) return;
  call.answered = true;
  call.sidTold = true;
  call.answeredAt = vs.now();
  call.fields.CallStatus = 'in-progress';
  const listed = app(vs).registry.calls.get(call.sid);
  if (listed) app(vs).registry.setStatus(listed, 'in-progress');
  call.onAnswered?.();
  send(vs, call.conn, 'answer', {
    callsid: call.sid,
    sdp: call.leg.localSdp,
    ...(call.reconnect === undefined ? {} : { reconnect: call.reconnect }),
  });
}

/** Hangs the call up: its SDK is told, and the call ends. */
export function hangUpCall(vs: VoiceState, call: AppCall): void {
  if (call.ended) return;
  send(vs, call.conn, 'hangup', { callsid: sdkSid(call) });
  endAppCall(call);
}

/**
 * A call as it starts, its own parts given: not over, nothing waiting on its end, no TwiML running;
 * answered when `answeredAt` is given.
 */
export function appCall(
  start: Pick<AppCall, 'sid' | 'tempSid' | 'conn' | 'identity' | 'leg' | 'fields' | 'startedAt'> &
    Pick<Partial<AppCall>, 'reconnect'>,
  answeredAt: number | null = null,
): AppCall {
  return {
    ...start,
    answered: answeredAt !== null,
    sidTold: answeredAt !== null,
    ended: false,
    endStatus: null,
    hungUpByCaller: false,
    answeredAt,
    enders: new Set(),
    run: null,
  };
}

/**
 * A leg a device or a scripted phone answered (a `<Dial>` leg taken over by a redirect, a call
 * placed through the API) as a call of its own, in progress since `answeredAt`, its webhooks carrying `fields`.
 */
export function answeredCall(
  legSid: string,
  conn: Conn | null,
  identity: string,
  leg: MediaLeg,
  fields: Record<string, string>,
  answeredAt: number,
  reconnect?: string,
): AppCall {
  return appCall(
    {
      sid: legSid,
      tempSid: legSid,
      conn,
      identity,
      leg,
      fields: { ...fields, CallStatus: 'in-progress', ApiVersion: '2010-04-01' },
      startedAt: answeredAt,
      ...(reconnect === undefined ? {} : { reconnect }),
    },
    answeredAt,
  );
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
