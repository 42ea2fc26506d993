/**
 * A call placed through the REST API to a Voice SDK identity
 * (https://www.twilio.com/docs/voice/api/call-resource#create-a-call-resource, `To=client:<identity>`):
 * every device registered under the identity rings (an incoming call to its SDK, as a `<Client>`
 * leg does: `invite` with `CallSid`, `AccountSid`, `From`, `To`), for `Timeout` seconds (60 by
 * default); the first to answer takes it and the call runs its TwiML (`Twiml`, or `Url` asked with
 * the call's fields: `Direction=outbound-api`, `CallStatus=in-progress`); the others are cancelled.
 * The status callback (`StatusCallback`, `StatusCallbackEvent`: `completed` alone by default) says
 * `busy` when every device declined, `no-answer` when the ring ran out or nobody could be rung,
 * `canceled` when `Status=canceled` stopped it, and `completed` with the duration after an answered
 * call. Any other `To` is a number: one of the twins' scripted phones rings (number.ts), any other
 * number fails.
 */
import { randomBytes } from 'node:crypto';
import { offerLeg, type MediaLeg } from '../media';
import type { Conn, VoiceState } from '../model';
import { registeredSocketsOf, send } from '../wire';
import type { TwinCall } from '../rest/resources';
import { runAppCall } from './run-call';
import { acceptAnswer, answeredCall, app, endAppCall, forget, keepSummary, tracked } from './call';
import { DIAL_TIMEOUT_BUFFER, type Callback } from './parse';
import type { Start } from './run';
import { type Fork } from '../model';
import { placePhoneCall } from './number';

export interface PlaceOptions {
  statusCallback: Callback | null;
  /** Seconds the devices ring. */
  timeout: number;
}

export async function placeCall(
  vs: VoiceState,
  listed: TwinCall,
  start: Start,
  options: PlaceOptions,
): Promise<void> {
  const mode = app(vs);
  const fields = {
    AccountSid: listed.accountSid,
    CallSid: listed.sid,
    From: listed.from,
    To: listed.to,
    Direction: 'outbound-api' as const,
  };
  forget(vs, listed.sid);
  const status = tracked(vs, listed, options.statusCallback, fields, mode.webhooks);
  status.initiated();
  const named = /^client:(.+)$/.exec(listed.to)?.[1];
  // A number: one of the twins' scripted phones (number.ts), or nobody (failed).
  if (named === undefined) return placePhoneCall(vs, listed, start, options, status, fields);
  let leg: MediaLeg;
  try {
    leg = await offerLeg(vs.options.media);
  } catch (err) {
    vs.log(`voice twin: the leg of ${listed.sid} could not be made: ${String(err)}`);
    status.ended('failed', 0);
    return;
  }
  const identity = named;
  const devices = new Set(registeredSocketsOf(vs, identity));
  if (devices.size === 0 || listed.status !== 'queued') {
    void leg.close();
    status.ended(listed.status === 'canceled' ? 'canceled' : 'no-answer', 0);
    return;
  }
  let over = false;
  const stop = (final: 'busy' | 'no-answer' | 'canceled' | 'failed'): void => {
    if (over) return;
    over = true;
    clearTimeout(timer);
    mode.forks.delete(fork.sid);
    for (const d of fork.devices) send(vs, d, 'cancel', { callsid: fork.sid });
    fork.devices.clear();
    void leg.close();
    status.ended(final, 0);
  };
  // "For some call flows, we will add a 5-second buffer to the timeout value you provide" (the call
  // resource's Timeout): as for a <Dial>.
  const timer = setTimeout(() => stop('no-answer'), (options.timeout + DIAL_TIMEOUT_BUFFER) * 1000);
  let declined = false;
  const fork: Fork = {
    sid: listed.sid,
    parent: null,
    identity,
    from: listed.from,
    reconnect: { token: randomBytes(16).toString('hex'), sdp: leg.localSdp },
    devices,
    status,
    answeredBy: null,
    answeredAt: null,
    onAnswer: (conn, sdp) => void answered(conn, sdp),
    onGone(conn, refused) {
      // Hung up while its answer is being taken: the call ends as soon as it has started.
      if (over && fork.answeredBy === conn) leftWhileAnswering = true;
      if (over || !fork.devices.delete(conn)) return;
      declined ||= refused;
      // A decline on one device is the person's: the others stop ringing (stop cancels them), as
      // Twilio's signalling does (https://github.com/twilio/twilio-voice.js/issues/435).
      if (refused || fork.devices.size === 0) stop(declined ? 'busy' : 'no-answer');
    },
    takeOver: () => null,
    cancel: () => stop('canceled'),
  };
  mode.forks.set(fork.sid, fork);
  const parameters = {
    CallSid: fork.sid,
    AccountSid: listed.accountSid,
    From: listed.from,
    To: listed.to,
    ApiVersion: '2010-04-01',
    Params: '',
  };
  for (const device of devices)
    send(vs, device, 'invite', {
      callsid: fork.sid,
      sdp: leg.localSdp,
      parameters,
      reconnect: fork.reconnect.token,
    });
  mode.registry.setStatus(listed, 'ringing');
  status.ringing();

  let leftWhileAnswering = false;

  async function answered(conn: Conn, sdp: string): Promise<void> {
    if (over || !fork.devices.has(conn)) return;
    over = true;
    fork.answeredBy = conn;
    clearTimeout(timer);
    for (const d of fork.devices) if (d !== conn) send(vs, d, 'cancel', { callsid: fork.sid });
    fork.devices.clear();
    // The fork stays listed while the answer is taken, so a hang-up meanwhile reaches onGone.
    const accepted = await acceptAnswer(vs, conn, fork.sid, leg, sdp);
    mode.forks.delete(fork.sid);
    if (!accepted) {
      void leg.close();
      status.ended('failed', 0);
      return;
    }
    const answeredAt = vs.now();
    keepSummary(vs, fork.sid, identity, leg);
    status.answered();
    const call = answeredCall(
      fork.sid,
      conn,
      identity,
      leg,
      fields,
      answeredAt,
      fork.reconnect.token,
    );
    const running = runAppCall(vs, call, start, null, (final, seconds) =>
      status.ended(final, seconds),
    );
    if (leftWhileAnswering) {
      call.hungUpByCaller = true;
      endAppCall(call);
    }
    await running;
  }
}
