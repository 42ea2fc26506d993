/**
 * A call the twin runs for a TwiML application, and its {@link CallLeg}: what the interpreter's verbs
 * do to the caller's audio (the twin's media legs, media.ts) and who a `<Dial>` rings (the Voice
 * SDK's sockets, signalling.ts).
 *
 * As Twilio does it:
 * - the caller's call is answered by the first verb that plays or records (`<Say>`, `<Play>`,
 *   `<Record>`), or by a `<Dial>` at once unless `answerOnBridge` is set, when it is answered as the
 *   callee is bridged (https://www.twilio.com/docs/voice/twiml/dial#answeronbridge); until then the
 *   caller hears ringback as early media;
 * - `<Pause>` first waits before answering (https://www.twilio.com/docs/voice/twiml/pause);
 * - each `<Client>` noun is a child call of its own (`Direction=outbound-dial`, `ParentCallSid`),
 *   ringing every device registered under that identity; the first to answer is bridged and every
 *   other is cancelled; `<Parameter>`s reach the callee's SDK as the call's custom parameters
 *   (https://www.twilio.com/docs/voice/twiml/client#custom-parameters);
 * - `DialCallStatus` is `completed` after a bridged call, `busy` when every callee declined,
 *   `no-answer` when the ring ran out (or nobody could be rung), `canceled` when the caller hung up
 *   first, `failed` for a noun the twin cannot reach (below)
 *   (https://www.twilio.com/docs/voice/twiml/dial#dialcallstatus-values).
 *
 * Not carried yet: `<Number>` (the twins have no phone network: `failed`), `<Conference>`
 * (`failed`, logged), `<Record>`'s `finishOnKey` (DTMF reaches the twin in-band only).
 */
import { randomBytes } from 'node:crypto';
import { TONES } from '../audio';
import { pcmToMulaw, rms } from '../codec';
import { bridge, offerLeg, type MediaLeg } from '../media';
import { sid, type Conn, type VoiceState } from '../model';
import { registeredSocketsOf, send } from '../signalling';
import type { DialNoun } from './parse';
import type { CallLeg, DialOutcome, RecordOutcome } from './run';
import { statusReporter, type FinalStatus, type StatusReporter } from './status';
import type { AppMode } from './application';
import type { TwinCall } from '../rest/resources';
import { playable, spoken, VOICEMAIL_BEEP } from './sounds';

/** A call placed by a browser and run by the application's TwiML. */
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
}

/** One `<Client>` of a `<Dial>`: a child call ringing one identity's devices. */
export interface Fork {
  sid: string;
  call: AppCall;
  identity: string;
  devices: Set<Conn>;
  status: StatusReporter;
  /** The device that answered, once bridged. */
  answeredBy: Conn | null;
  answeredAt: number | null;
  /** Told of the fork's devices' answers, declines and hang-ups. */
  onAnswer(conn: Conn, sdp: string): void;
  onGone(conn: Conn, declined: boolean): void;
}

const app = (vs: VoiceState): AppMode => vs.app!;

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

/** A leg's status callbacks, with the REST registry's call kept in step. */
function tracked(
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

/** Resolves after `ms`, or at once when the call ends first (true when the time ran out). */
function wait(call: AppCall, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (call.ended) return resolve(false);
    const done = (ranOut: boolean) => {
      clearTimeout(timer);
      call.enders.delete(stop);
      resolve(ranOut);
    };
    const stop = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    call.enders.add(stop);
  });
}

export class TwinCallLeg implements CallLeg {
  constructor(
    private readonly vs: VoiceState,
    private readonly call: AppCall,
  ) {}

  get ended(): boolean {
    return this.call.ended;
  }

  /** Answers the caller's SDK (once): its call turns open. */
  answer(): void {
    const call = this.call;
    if (call.answered || call.ended || !call.leg) return;
    call.answered = true;
    call.answeredAt = this.vs.now();
    call.fields.CallStatus = 'in-progress';
    const listed = app(this.vs).registry.calls.get(call.sid);
    if (listed) app(this.vs).registry.setStatus(listed, 'in-progress');
    send(this.vs, call.conn, 'answer', { callsid: call.sid, sdp: call.leg.localSdp });
  }

  /** Plays `audio` `loop` times (0: until the call ends). */
  private async playAudio(audio: Buffer, loop: number): Promise<void> {
    const call = this.call;
    for (let i = 0; loop === 0 || i < loop; i++) {
      if (call.ended || !call.leg) return;
      const leg = call.leg;
      const stop = () => leg.stopPlaying();
      call.enders.add(stop);
      const whole = await leg.playOnce(audio);
      call.enders.delete(stop);
      if (!whole) return;
    }
  }

  async say(
    text: string,
    options: { voice: string | null; language: string | null; loop: number },
  ): Promise<void> {
    this.answer();
    const audio = await spoken(this.vs, text, options.language);
    await this.playAudio(audio, options.loop);
  }

  async play(url: string, loop: number): Promise<void> {
    this.answer();
    let audio: Buffer;
    try {
      audio = await playable(this.vs, url);
    } catch (err) {
      // Twilio's 11100-range errors: the verb is skipped and the document goes on.
      this.vs.log(`voice twin: <Play> ${url}: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    await this.playAudio(audio, loop);
  }

  async pause(seconds: number): Promise<void> {
    await wait(this.call, seconds * 1000);
  }

  async record(options: {
    maxLength: number;
    timeout: number;
    finishOnKey: string;
    playBeep: boolean;
  }): Promise<RecordOutcome> {
    this.answer();
    const call = this.call;
    if (options.playBeep) await this.playAudio(VOICEMAIL_BEEP, 1);
    if (call.ended || !call.leg) return { recording: null, digits: 'hangup' };
    const leg = call.leg;
    leg.play(null);
    const chunks: Buffer[] = [];
    let lastSound = this.vs.now();
    // The caller's audio in whichever codec the leg speaks, kept as μ-law (the voicemail store's).
    const stopListening = leg.onAudio((pcm) => {
      chunks.push(pcmToMulaw(pcm));
      // Anything louder than line noise counts as speech for the silence timeout.
      if (rms(pcm) > 300) lastSound = this.vs.now();
    });
    const started = this.vs.now();
    while (!call.ended) {
      const elapsed = this.vs.now() - started;
      if (elapsed >= options.maxLength * 1000) break;
      if (options.timeout > 0 && this.vs.now() - lastSound >= options.timeout * 1000) break;
      await wait(call, 200);
    }
    stopListening();
    const audio = Buffer.concat(chunks);
    const seconds = Math.round(audio.length / 8000);
    const digits = call.ended ? 'hangup' : '';
    if (seconds < 1 || !this.vs.options.voicemail) return { recording: null, digits };
    const saved = this.vs.options.voicemail.save(audio, {
      groupId: '',
      callId: call.sid,
      at: this.vs.now(),
    });
    if (!saved) return { recording: null, digits };
    const recordingSid = sid('RE');
    app(this.vs).recordings.set(recordingSid, saved.id);
    const account = call.fields.AccountSid ?? '';
    return {
      recording: {
        sid: recordingSid,
        url: `https://api.twilio.com/2010-04-01/Accounts/${account}/Recordings/${recordingSid}`,
        seconds,
      },
      digits,
    };
  }

  reject(reason: 'rejected' | 'busy'): void {
    const call = this.call;
    if (call.ended) return;
    call.endStatus = reason === 'busy' ? 'busy' : 'no-answer';
    send(this.vs, call.conn, 'hangup', {
      callsid: call.sid,
      error:
        reason === 'busy'
          ? { code: 31486, message: 'Busy Here' }
          : { code: 31603, message: 'Decline' },
    });
    endAppCall(call);
  }

  hangUp(): void {
    const call = this.call;
    if (call.ended) return;
    send(this.vs, call.conn, 'hangup', { callsid: call.sid });
    endAppCall(call);
  }

  async dial(
    nouns: readonly DialNoun[],
    options: Parameters<CallLeg['dial']>[1],
  ): Promise<DialOutcome> {
    const { vs, call } = this;
    if (!options.answerOnBridge) this.answer();
    const clients = nouns.flatMap((n) => (n.kind === 'client' ? [n] : []));
    for (const n of nouns)
      if (n.kind !== 'client')
        vs.log(
          `voice twin: <Dial><${n.kind === 'number' ? 'Number' : 'Conference'}> is not carried by the twins yet`,
        );
    if (clients.length === 0 || call.ended || !call.leg)
      return { status: call.ended ? 'canceled' : 'failed', callSid: null, seconds: 0 };
    let leg: MediaLeg;
    try {
      leg = await offerLeg(vs.options.media);
    } catch (err) {
      vs.log(`voice twin: a dialled leg could not be made: ${String(err)}`);
      return { status: 'failed', callSid: null, seconds: 0 };
    }
    const callerLeg = call.leg;
    return new Promise<DialOutcome>((resolve) => {
      const forks: Fork[] = [];
      let bridged: { fork: Fork; unbridge: () => void } | null = null;
      let settled = false;
      const settle = (outcome: DialOutcome): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        call.enders.delete(onCallerGone);
        for (const f of forks) app(vs).forks.delete(f.sid);
        if (callerLeg.playing === 'sound' && !call.ended) callerLeg.play(null);
        void leg.close();
        resolve(outcome);
      };
      /** Ends every fork still ringing, with `status`, on each of its devices with `cancel`. */
      const cancelRinging = (status: FinalStatus, except: Fork | null): void => {
        for (const f of forks) {
          if (f === except || f.answeredBy) continue;
          for (const d of f.devices) send(vs, d, 'cancel', { callsid: f.sid });
          f.devices.clear();
          f.status.ended(status, 0);
        }
      };
      const onCallerGone = (): void => {
        if (bridged) {
          const { fork, unbridge } = bridged;
          unbridge();
          send(vs, fork.answeredBy, 'hangup', { callsid: fork.sid });
          const seconds = (vs.now() - (fork.answeredAt ?? vs.now())) / 1000;
          fork.status.ended('completed', seconds);
          settle({ status: 'completed', callSid: fork.sid, seconds: Math.round(seconds) });
          return;
        }
        cancelRinging('canceled', null);
        settle({ status: 'canceled', callSid: forks[0]?.sid ?? null, seconds: 0 });
      };
      call.enders.add(onCallerGone);
      const timer = setTimeout(() => {
        if (bridged) return;
        cancelRinging('no-answer', null);
        settle({ status: 'no-answer', callSid: forks[0]?.sid ?? null, seconds: 0 });
      }, options.ringSeconds * 1000);

      const parentFrom = call.fields.From ?? '';
      for (const noun of clients) {
        const forkSid = sid('CA');
        const listed = app(vs).registry.addCall({
          sid: forkSid,
          accountSid: call.fields.AccountSid ?? '',
          parentCallSid: call.sid,
          from: options.callerId ?? parentFrom,
          to: `client:${noun.identity}`,
          direction: 'outbound-dial',
          status: 'ringing',
        });
        forget(vs, forkSid);
        const fork: Fork = {
          sid: forkSid,
          call,
          identity: noun.identity,
          devices: new Set(registeredSocketsOf(vs, noun.identity)),
          status: tracked(
            vs,
            listed,
            noun.statusCallback,
            {
              AccountSid: call.fields.AccountSid ?? '',
              CallSid: forkSid,
              ParentCallSid: call.sid,
              From: options.callerId ?? parentFrom,
              To: `client:${noun.identity}`,
              Direction: 'outbound-dial',
            },
            app(vs).webhooks,
          ),
          answeredBy: null,
          answeredAt: null,
          onAnswer: (conn, sdp) => void answered(fork, conn, sdp),
          onGone: (conn, declined) => gone(fork, conn, declined),
        };
        forks.push(fork);
        app(vs).forks.set(fork.sid, fork);
        fork.status.initiated();
        const parameters = {
          CallSid: fork.sid,
          AccountSid: call.fields.AccountSid ?? '',
          From: options.callerId ?? parentFrom,
          To: `client:${noun.identity}`,
          ApiVersion: '2010-04-01',
          Params: new URLSearchParams(noun.parameters).toString(),
        };
        const token = randomBytes(16).toString('hex');
        for (const device of fork.devices)
          send(vs, device, 'invite', {
            callsid: fork.sid,
            sdp: leg.localSdp,
            parameters,
            reconnect: token,
          });
        if (fork.devices.size > 0) fork.status.ringing();
        else fork.status.ended('no-answer', 0);
      }
      if (forks.every((f) => f.devices.size === 0)) {
        settle({ status: 'no-answer', callSid: forks[0]?.sid ?? null, seconds: 0 });
        return;
      }
      // Early media: the caller hears ringback until someone answers.
      callerLeg.play(TONES.ringback);

      async function answered(fork: Fork, conn: Conn, sdp: string): Promise<void> {
        if (settled || bridged || !fork.devices.has(conn)) return;
        fork.answeredBy = conn;
        fork.answeredAt = vs.now();
        for (const d of fork.devices) if (d !== conn) send(vs, d, 'cancel', { callsid: fork.sid });
        fork.devices.clear();
        cancelRinging('canceled', fork);
        clearTimeout(timer);
        try {
          await leg.accept(sdp);
        } catch (err) {
          vs.log(`voice twin: the answer to ${fork.sid} was refused: ${String(err)}`);
          send(vs, conn, 'hangup', {
            callsid: fork.sid,
            error: { code: 31000, message: 'The call could not be connected.' },
          });
          fork.status.ended('failed', 0);
          settle({ status: 'failed', callSid: fork.sid, seconds: 0 });
          return;
        }
        if (settled || call.ended) return;
        callerLeg.stopPlaying();
        bridged = { fork, unbridge: bridge(callerLeg, leg) };
        fork.status.answered();
        new TwinCallLeg(vs, call).answer();
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
          const seconds = (vs.now() - (fork.answeredAt ?? vs.now())) / 1000;
          fork.status.ended('completed', seconds);
          settle({ status: 'completed', callSid: fork.sid, seconds: Math.round(seconds) });
          return;
        }
        if (!fork.devices.delete(conn) || fork.devices.size > 0) return;
        fork.status.ended(declined ? 'busy' : 'no-answer', 0);
        if (forks.some((f) => f.devices.size > 0)) return;
        settle({ status: declined ? 'busy' : 'no-answer', callSid: fork.sid, seconds: 0 });
      }
    });
  }
}
