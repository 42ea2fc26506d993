/**
 * The {@link CallLeg} of a call the twin runs for a TwiML application: what the interpreter's verbs
 * do to the call's audio (the twin's media legs, media.ts); a `<Dial>` rings `<Client>`s (dial.ts)
 * or joins a `<Conference>` (conference.ts). One leg is one run of the call's TwiML: a redirect
 * (https://www.twilio.com/docs/voice/api/call-resource#update-a-call-resource) stops it, the verb
 * running then ends at once, and the call goes on under a new leg.
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
 *   first, `failed` for a noun the twin cannot reach
 *   (https://www.twilio.com/docs/voice/twiml/dial#dialcallstatus-values);
 * - `<Number>` rings the twins' scripted phones (number.ts, ../phones.ts);
 * - `<Record finishOnKey>` ends on a key heard in-band (DTMF tones in the caller's audio, as a
 *   phone's keypad sends them); the key is the action's `Digits`.
 */
import { rms } from '../codec';
import { dtmfKey } from '../phones';
import { sid, type VoiceState, type RunScope } from '../model';
import { send } from '../wire';
import { answerCall, endAppCall, hangUpCall, sdkSid } from './call';
import { joinConference } from './conference';
import { dialClients } from './dial';
import { dialNumber } from './number';
import type { DialNoun } from './parse';
import type { CallLeg, DialOutcome, RecordOutcome } from './run';
import { sayRefusal } from './voices';
import { playable, spoken, VOICEMAIL_BEEP } from './sounds';
import { pcmToMulaw } from '../../../platform/audio/g711';
import { type AppCall, type CallRun } from '../model';

export class TwinCallLeg implements CallLeg, CallRun, RunScope {
  private stopped = false;
  private readonly stoppers = new Set<() => void>();
  private readonly onCallEnd = (): void => this.stop();

  constructor(
    private readonly vs: VoiceState,
    private readonly call: AppCall,
  ) {
    call.enders.add(this.onCallEnd);
  }

  /** True once the call is over or this run was stopped (a redirect): the interpreter stops. */
  get ended(): boolean {
    return this.call.ended || this.stopped;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.call.enders.delete(this.onCallEnd);
    for (const stop of [...this.stoppers]) stop();
    this.stoppers.clear();
  }

  onStop(stop: () => void): () => void {
    if (this.ended) {
      stop();
      return () => {};
    }
    this.stoppers.add(stop);
    return () => this.stoppers.delete(stop);
  }

  /** Resolves after `ms`, or at once when the run stops first (true when the time ran out). */
  private wait(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (ranOut: boolean) => {
        clearTimeout(timer);
        off();
        resolve(ranOut);
      };
      const timer = setTimeout(() => done(true), ms);
      const off = this.onStop(() => done(false));
    });
  }

  /** Answers the caller's SDK (once): its call turns open. */
  answer(): void {
    if (!this.ended) answerCall(this.vs, this.call);
  }

  /** Plays `audio` `loop` times (0: until the run stops). */
  private async playAudio(audio: Buffer, loop: number): Promise<void> {
    for (let i = 0; loop === 0 || i < loop; i++) {
      if (this.ended || !this.call.leg) return;
      const leg = this.call.leg;
      const off = this.onStop(() => leg.stopPlaying());
      const whole = await leg.playOnce(audio);
      off();
      if (!whole) return;
    }
  }

  async say(
    text: string,
    options: { voice: string | null; language: string | null; loop: number },
  ): Promise<void> {
    this.answer();
    const refused = sayRefusal(options.voice, options.language);
    if (refused) {
      // The instruction fails, as on Twilio; the document goes on.
      this.vs.log(`voice twin: <Say> skipped: ${refused}`);
      return;
    }
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
    await this.wait(seconds * 1000);
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
    if (this.ended || !call.leg) return { recording: null, digits: 'hangup' };
    const leg = call.leg;
    leg.play(null);
    const chunks: Buffer[] = [];
    let lastSound = this.vs.now();
    /** The last 60 ms heard, where a key's tones are looked for; the key that ended the recording. */
    const recent = new Int16Array(480);
    let pressed: string | null = null;
    // The caller's audio in whichever codec the leg speaks, kept as μ-law (the voicemail store's).
    const stopListening = leg.onAudio((pcm) => {
      chunks.push(pcmToMulaw(pcm));
      // Anything louder than line noise counts as speech for the silence timeout.
      if (rms(pcm) > 300) lastSound = this.vs.now();
      if (options.finishOnKey === '' || pressed !== null) return;
      const n = Math.min(pcm.length, recent.length);
      recent.copyWithin(0, n);
      recent.set(pcm.subarray(pcm.length - n), recent.length - n);
      const key = dtmfKey(recent);
      if (key !== null && options.finishOnKey.includes(key)) pressed = key;
    });
    const started = this.vs.now();
    while (!this.ended && pressed === null) {
      const elapsed = this.vs.now() - started;
      if (elapsed >= options.maxLength * 1000) break;
      if (options.timeout > 0 && this.vs.now() - lastSound >= options.timeout * 1000) break;
      await this.wait(200);
    }
    stopListening();
    const audio = Buffer.concat(chunks);
    const seconds = Math.round(audio.length / 8000);
    const digits = call.ended ? 'hangup' : (pressed ?? '');
    if (seconds < 1 || !this.vs.options.voicemail) return { recording: null, digits };
    // Kept under its Recording SID, so the Recordings resource finds it after a restart too.
    const recordingSid = sid('RE');
    const saved = this.vs.options.voicemail.save(
      audio,
      { callId: call.sid, at: this.vs.now() },
      recordingSid,
    );
    if (!saved) return { recording: null, digits };
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
    if (this.ended) return;
    call.endStatus = reason === 'busy' ? 'busy' : 'no-answer';
    send(this.vs, call.conn, 'hangup', {
      callsid: sdkSid(call),
      error:
        reason === 'busy'
          ? { code: 31486, message: 'Busy Here' }
          : { code: 31603, message: 'Decline' },
    });
    endAppCall(call);
  }

  hangUp(): void {
    if (!this.ended) hangUpCall(this.vs, this.call);
  }

  async dial(
    nouns: readonly DialNoun[],
    options: Parameters<CallLeg['dial']>[1],
  ): Promise<DialOutcome> {
    const { vs, call } = this;
    // answerOnBridge is not for <Conference>: the caller is answered as it joins.
    if (!options.answerOnBridge || nouns.some((n) => n.kind === 'conference')) this.answer();
    if (this.ended || !call.leg)
      return { status: this.ended ? 'canceled' : 'failed', callSid: null, seconds: 0 };
    const conference = nouns.find((n) => n.kind === 'conference');
    if (conference) return joinConference(vs, call, conference, this);
    const clients = nouns.flatMap((n) => (n.kind === 'client' ? [n] : []));
    const numbers = nouns.flatMap((n) => (n.kind === 'number' ? [n] : []));
    if (numbers.length > 1 || (numbers.length > 0 && clients.length > 0))
      vs.log(
        'voice twin: a <Dial> of several <Number>s, or of <Number>s and <Client>s, is not carried: ' +
          (clients.length > 0 ? 'the <Client>s are dialled' : 'the first <Number> is dialled'),
      );
    if (clients.length === 0 && numbers[0]) return dialNumber(vs, call, numbers[0], options, this);
    if (clients.length === 0) return { status: 'failed', callSid: null, seconds: 0 };
    return dialClients(vs, call, clients, options, this);
  }
}
