/**
 * `<Dial><Client>` on the twin (https://www.twilio.com/docs/voice/twiml/client): each noun a child
 * call ringing every device registered under its identity, the first to answer bridged to the
 * caller, the others cancelled; `DialCallStatus` as https://www.twilio.com/docs/voice/twiml/dial#dialcallstatus-values
 * says. While bridged, the child can be redirected through the REST API
 * (https://www.twilio.com/docs/voice/api/call-resource#update-a-call-resource): it leaves the
 * bridge with its media leg (`Fork.takeOver`), and the `<Dial>` ends `completed`.
 */
import { randomBytes } from 'node:crypto';
import { offerLeg, type MediaLeg } from '../media';
import { bridge } from '../bridge';
import { sid, type Conn, type VoiceState } from '../model';
import { registeredSocketsOf, send } from '../wire';
import { acceptAnswer, answerCall, app, forget, keepSummary, ringCaller, tracked } from './call';
import type { DialNoun } from './parse';
import type { CallLeg, DialOutcome } from './run';
import type { FinalStatus } from './status';
import { TONES } from '../../../platform/audio/tones';
import { type AppCall, type Fork } from '../model';
import { type RunScope } from '../model';

type ClientNoun = Extract<DialNoun, { kind: 'client' }>;

export async function dialClients(
  vs: VoiceState,
  call: AppCall,
  clients: readonly ClientNoun[],
  options: Parameters<CallLeg['dial']>[1],
  run: RunScope,
): Promise<DialOutcome> {
  let leg: MediaLeg;
  try {
    leg = await offerLeg(vs.options.media);
  } catch (err) {
    vs.log(`voice twin: a dialled leg could not be made: ${String(err)}`);
    return { status: 'failed', callSid: null, seconds: 0 };
  }
  const callerLeg = call.leg!;
  if (run.ended) {
    void leg.close();
    return { status: 'canceled', callSid: null, seconds: 0 };
  }
  return new Promise<DialOutcome>((resolve) => {
    const forks: Fork[] = [];
    let bridged: { fork: Fork; unbridge: () => void } | null = null;
    let settled = false;
    /** The dialled leg was handed to a redirected child: it is no longer this `<Dial>`'s to close. */
    let handedOver = false;
    const settle = (outcome: DialOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      offStop();
      for (const f of forks) app(vs).forks.delete(f.sid);
      if (callerLeg.playing === 'sound' && !call.ended) callerLeg.play(null);
      if (!handedOver) void leg.close();
      resolve(outcome);
    };
    const secondsOf = (fork: Fork): number => (vs.now() - (fork.answeredAt ?? vs.now())) / 1000;
    /** Ends every fork still ringing, with `status`, on each of its devices with `cancel`. */
    const cancelRinging = (status: FinalStatus, except: Fork | null): void => {
      for (const f of forks) {
        if (f === except || f.answeredBy) continue;
        for (const d of f.devices) send(vs, d, 'cancel', { callsid: f.sid });
        f.devices.clear();
        f.status.ended(status, 0);
      }
    };
    // The caller hung up, or the call was redirected: the bridged callee is hung up, the ringing
    // ones cancelled.
    const offStop = run.onStop(() => {
      if (bridged) {
        const { fork, unbridge } = bridged;
        unbridge();
        send(vs, fork.answeredBy, 'hangup', { callsid: fork.sid });
        const seconds = secondsOf(fork);
        fork.status.ended('completed', seconds);
        settle({ status: 'completed', callSid: fork.sid, seconds: Math.round(seconds) });
        return;
      }
      cancelRinging('canceled', null);
      settle({ status: 'canceled', callSid: forks[0]?.sid ?? null, seconds: 0 });
    });
    const timer = setTimeout(() => {
      if (bridged) return;
      cancelRinging('no-answer', null);
      settle({ status: 'no-answer', callSid: forks[0]?.sid ?? null, seconds: 0 });
    }, options.ringSeconds * 1000);

    const from = options.callerId ?? call.fields.From ?? '';
    const account = call.fields.AccountSid ?? '';
    for (const noun of clients) {
      const forkSid = sid('CA');
      const to = `client:${noun.identity}`;
      const listed = app(vs).registry.addCall({
        sid: forkSid,
        accountSid: account,
        parentCallSid: call.sid,
        from,
        to,
        direction: 'outbound-dial',
        status: 'ringing',
      });
      forget(vs, forkSid);
      const fields = {
        AccountSid: account,
        CallSid: forkSid,
        ParentCallSid: call.sid,
        From: from,
        To: to,
        Direction: 'outbound-dial' as const,
      };
      const fork: Fork = {
        sid: forkSid,
        parent: call,
        identity: noun.identity,
        from,
        reconnect: { token: randomBytes(16).toString('hex'), sdp: leg.localSdp },
        devices: new Set(registeredSocketsOf(vs, noun.identity)),
        status: tracked(vs, listed, noun.statusCallback, fields, app(vs).webhooks),
        answeredBy: null,
        answeredAt: null,
        onAnswer: (conn, sdp) => void answered(fork, conn, sdp),
        onGone: (conn, declined) => gone(fork, conn, declined),
        takeOver: () => takeOver(fork),
      };
      forks.push(fork);
      app(vs).forks.set(fork.sid, fork);
      fork.status.initiated();
      const parameters = {
        CallSid: fork.sid,
        AccountSid: account,
        From: from,
        To: to,
        ApiVersion: '2010-04-01',
        Params: new URLSearchParams(noun.parameters).toString(),
      };
      for (const device of fork.devices)
        send(vs, device, 'invite', {
          callsid: fork.sid,
          sdp: leg.localSdp,
          parameters,
          reconnect: fork.reconnect.token,
        });
      if (fork.devices.size > 0) {
        fork.status.ringing();
        ringCaller(vs, call);
      } else fork.status.ended('no-answer', 0);
    }
    if (forks.every((f) => f.devices.size === 0)) {
      settle({ status: 'no-answer', callSid: forks[0]?.sid ?? null, seconds: 0 });
      return;
    }
    // Early media: the caller hears ringback until someone answers.
    callerLeg.play(TONES.ringback);

    /** Forks whose answerer hung up while the answer was being taken. */
    const leftWhileAnswering = new Set<Fork>();

    async function answered(fork: Fork, conn: Conn, sdp: string): Promise<void> {
      if (settled || bridged || !fork.devices.has(conn)) return;
      fork.answeredBy = conn;
      fork.answeredAt = vs.now();
      for (const d of fork.devices) if (d !== conn) send(vs, d, 'cancel', { callsid: fork.sid });
      fork.devices.clear();
      cancelRinging('canceled', fork);
      clearTimeout(timer);
      if (!(await acceptAnswer(vs, conn, fork.sid, leg, sdp))) {
        fork.status.ended('failed', 0);
        settle({ status: 'failed', callSid: fork.sid, seconds: 0 });
        return;
      }
      if (settled || call.ended) return;
      callerLeg.stopPlaying();
      keepSummary(vs, fork.sid, fork.identity, leg);
      bridged = { fork, unbridge: bridge(callerLeg, leg) };
      fork.status.answered();
      answerCall(vs, call);
      // Hung up while its answer was being taken: answered, then ended at once, as on Twilio.
      if (leftWhileAnswering.delete(fork)) {
        gone(fork, conn, false);
        return;
      }
      if (options.timeLimit > 0)
        setTimeout(() => {
          if (bridged?.fork === fork && !settled) gone(fork, conn, false);
        }, options.timeLimit * 1000).unref();
    }

    function gone(fork: Fork, conn: Conn, declined: boolean): void {
      if (settled) return;
      if (fork.answeredBy === conn && bridged) {
        // The callee hung up: the caller's document goes on.
        bridged.unbridge();
        if (!conn.closed) send(vs, conn, 'hangup', { callsid: fork.sid });
        const seconds = secondsOf(fork);
        fork.status.ended('completed', seconds);
        settle({ status: 'completed', callSid: fork.sid, seconds: Math.round(seconds) });
        return;
      }
      if (fork.answeredBy === conn) {
        // The answer is still being taken (its SDP accepted by the leg): ended once it is.
        leftWhileAnswering.add(fork);
        return;
      }
      if (!fork.devices.delete(conn)) return;
      // A decline is the person's, on every device: Twilio's signalling cancels the identity's other
      // rings when one rejects (https://github.com/twilio/twilio-voice.js/issues/435, a maintainer).
      if (declined) {
        for (const d of fork.devices) send(vs, d, 'cancel', { callsid: fork.sid });
        fork.devices.clear();
      }
      if (fork.devices.size > 0) return;
      fork.status.ended(declined ? 'busy' : 'no-answer', 0);
      if (forks.some((f) => f.devices.size > 0)) return;
      settle({ status: declined ? 'busy' : 'no-answer', callSid: fork.sid, seconds: 0 });
    }

    function takeOver(fork: Fork): MediaLeg | null {
      if (settled || bridged?.fork !== fork) return null;
      bridged.unbridge();
      handedOver = true;
      // The child's call goes on: its status callback reports `completed` when it finally ends.
      settle({ status: 'completed', callSid: fork.sid, seconds: Math.round(secondsOf(fork)) });
      return leg;
    }
  });
}
