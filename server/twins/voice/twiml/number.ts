/**
 * The twins' phone network in calls (the phones and their scripts are ../phones.ts):
 *
 * - `<Dial><Number>` (https://www.twilio.com/docs/voice/twiml/number): the number's phone is a child
 *   call (`Direction=outbound-dial`, `ParentCallSid`, `From` the `<Dial callerId>`, else the parent's
 *   `From`), whose `<Number statusCallback>` hears the events it names; the caller hears ringback
 *   until the phone answers, then they are bridged. `DialCallStatus`
 *   (https://www.twilio.com/docs/voice/twiml/dial#dialcallstatus-values): `completed` after a
 *   bridged call, `busy`, `no-answer` (the ring ran out), `failed` (the number cannot be reached, or
 *   the caller ID is not allowed: warning 13214, "callerId must be the calling number, called
 *   number, or a validated outgoing number. Additionally, if the calling leg is a client leg, the
 *   caller ID is required", https://www.twilio.com/docs/errors/13214), `canceled` when the caller
 *   left first. While bridged, the child can be redirected through the REST API as a `<Client>`'s
 *   is (engine.ts): it leaves the bridge with its line and runs its new TwiML as a call of its own.
 * - A call placed through the REST API to a number
 *   (https://www.twilio.com/docs/voice/api/call-resource#create-a-call-resource): the phone rings
 *   for `Timeout`; answered, the call runs its TwiML (`Direction=outbound-api`); its status callback
 *   says `busy`, `no-answer`, `failed`, `canceled`, or `completed` with the duration.
 * - A phone calling one of the account's numbers (the twin-only route, rest/phones.ts): the number's
 *   Voice URL (the TwiML app's, docs/operations.md setup step 6) is asked as Twilio asks it
 *   (https://www.twilio.com/docs/usage/webhooks/voice-webhooks): `From`/`Caller` the phone's number,
 *   `To`/`Called` the team's, `Direction=inbound`, `CallStatus=ringing`; the app's status callback
 *   hears its end.
 *
 * Not carried: more than one `<Number>` in a `<Dial>` (the first is dialled), a `<Dial>` mixing
 * `<Number>` and `<Client>` (the clients are dialled), `sendDigits`, `url` (whisper TwiML),
 * answering machine detection (`machineDetection`: no `AnsweredBy` is sent).
 */
import { bridge } from '../bridge';
import { PHONES, phoneAt, PhoneLine, steadyTone, type PhoneScript } from '../phones';
import {
  sid,
  type AppCall,
  type Fork,
  type PhoneCall,
  type RunScope,
  type VoiceState,
} from '../model';
import type { TwinCall } from '../rest/resources';
import { RestError } from '../rest/resources';
import type { PhoneNetwork, PhoneCallView } from '../rest/phones';
import { TONES } from '../../../platform/audio/tones';
import {
  answerCall,
  answeredCall,
  app,
  appCall,
  endAppCall,
  forget,
  ringCaller,
  tracked,
} from './call';
import type { DialNoun } from './parse';
import type { CallLeg, DialOutcome, Start } from './run';
import { spoken, VOICEMAIL_BEEP } from './sounds';
import { statusReporter, type FinalStatus, type StatusReporter } from './status';

type NumberNoun = Extract<DialNoun, { kind: 'number' }>;

const NOT_IN_PROGRESS = (): RestError =>
  new RestError(400, 21220, 'Call is not in-progress. Cannot redirect.');

/** A phone call is listed this long after it ends, for the route to read. */
const KEPT_MS = 60_000;

function keep(vs: VoiceState, call: PhoneCall): void {
  const mode = app(vs);
  mode.phoneCalls.set(call.sid, call);
  for (const [k, c] of mode.phoneCalls)
    if (c.listed.ended !== null && vs.now() - c.listed.ended > KEPT_MS) mode.phoneCalls.delete(k);
}

/** A fork standing for a phone's leg: no devices, so the SDK's frames never reach it. */
function phoneFork(
  childSid: string,
  parent: AppCall | null,
  script: PhoneScript,
  from: string,
  status: StatusReporter,
  hooks: Pick<Fork, 'takeOver' | 'cancel' | 'redirect'>,
): Fork {
  return {
    sid: childSid,
    parent,
    identity: script.number,
    from,
    reconnect: { token: '', sdp: '' },
    devices: new Set(),
    status,
    answeredBy: null,
    answeredAt: null,
    onAnswer: () => {},
    onGone: () => {},
    ...hooks,
  };
}

/**
 * What a phone does once its call is answered, until `hangUp` is called by its script: talks with
 * its tone, or (a machine) says its greeting and beeps, then listens; hangs up after its time.
 */
function runScript(vs: VoiceState, line: PhoneLine, script: PhoneScript, hangUp: () => void): void {
  if (script.toneHz > 0) line.talk(steadyTone(script.toneHz));
  else line.talk(null);
  if (script.greeting !== null) {
    const greeting = script.greeting;
    void spoken(vs, greeting, 'en-US')
      .catch((err: unknown) => {
        vs.log(`voice twin: ${script.number}'s greeting could not be spoken: ${String(err)}`);
        return Buffer.alloc(0);
      })
      .then(async (audio) => {
        await line.sayOnce(audio);
        await line.sayOnce(VOICEMAIL_BEEP);
      });
  }
  if (script.hangUpAfterSeconds !== null)
    setTimeout(hangUp, script.hangUpAfterSeconds * 1000).unref();
}

/** Whether `callerId` may be the caller ID of a `<Dial>` from `call` (error 13214). */
function callerIdAllowed(vs: VoiceState, call: AppCall, callerId: string | null): boolean {
  const from = call.fields.From ?? '';
  if (callerId === null) return !from.startsWith('client:');
  const own = app(vs).application.phoneNumbers ?? [];
  if (own.includes(callerId)) return true;
  return !from.startsWith('client:') && (callerId === from || callerId === call.fields.To);
}

/** `<Dial><Number>`: the number's phone rings; the first of `nouns` is dialled. */
export async function dialNumber(
  vs: VoiceState,
  call: AppCall,
  noun: NumberNoun,
  options: Parameters<CallLeg['dial']>[1],
  run: RunScope,
): Promise<DialOutcome> {
  const mode = app(vs);
  const account = call.fields.AccountSid ?? '';
  const from = options.callerId ?? call.fields.From ?? '';
  const childSid = sid('CA');
  const listed = mode.registry.addCall({
    sid: childSid,
    accountSid: account,
    parentCallSid: call.sid,
    from,
    to: noun.number,
    direction: 'outbound-dial',
    status: 'queued',
  });
  forget(vs, childSid);
  const fields = {
    AccountSid: account,
    CallSid: childSid,
    ParentCallSid: call.sid,
    From: from,
    To: noun.number,
    Direction: 'outbound-dial' as const,
  };
  const status = tracked(vs, listed, noun.statusCallback, fields, mode.webhooks);
  status.initiated();
  const failed = (why: string): DialOutcome => {
    vs.log(`voice twin: <Dial><Number>${noun.number}</Number> failed: ${why}`);
    status.ended('failed', 0);
    return { status: 'failed', callSid: childSid, seconds: 0 };
  };
  if (!callerIdAllowed(vs, call, options.callerId))
    return failed(
      `13214 Dial: Invalid callerId value ${JSON.stringify(options.callerId ?? '')} (it must be the calling number, the called number or one of the account's numbers; from a client it is required)`,
    );
  const script = phoneAt(noun.number);
  if (!script) return failed('no phone has this number on the twins (docs/twins-voice.md)');
  if (script.answer === 'failed') return failed('the number rejects calls');
  const callerLeg = call.leg!;
  if (run.ended) {
    status.ended('canceled', 0);
    return { status: 'canceled', callSid: childSid, seconds: 0 };
  }
  const lineReady =
    script.answer === 'busy' || script.answer === 'no-answer'
      ? null
      : PhoneLine.open(vs.options.media);
  // A line that cannot be made fails the dial (below); none waits on it unanswered.
  lineReady?.catch(() => undefined);

  return new Promise<DialOutcome>((resolve) => {
    let settled = false;
    let line: PhoneLine | null = null;
    let unbridge: (() => void) | null = null;
    let answeredAt: number | null = null;
    /** The line went to a redirected child: it is no longer this `<Dial>`'s to close. */
    let handedOver = false;
    const timers: NodeJS.Timeout[] = [];
    const later = (ms: number, then: () => void): void => {
      const t = setTimeout(then, ms);
      t.unref();
      timers.push(t);
    };
    const secondsNow = (): number => (answeredAt === null ? 0 : (vs.now() - answeredAt) / 1000);
    const phone: PhoneCall = {
      sid: childSid,
      script,
      other: from,
      direction: 'to-phone',
      listed,
      line: null,
      hangUp: () => phoneHungUp(),
    };
    keep(vs, phone);
    const settle = (outcome: DialOutcome): void => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      offStop();
      mode.forks.delete(childSid);
      if (callerLeg.playing === 'sound' && !call.ended) callerLeg.play(null);
      if (!handedOver) {
        void lineReady?.then((l) => l.close()).catch(() => undefined);
      }
      resolve(outcome);
    };
    /** Bridged and over: the caller's document goes on (or has ended). */
    const hungUpWhileBridged = (): void => {
      unbridge?.();
      unbridge = null;
      const seconds = secondsNow();
      status.ended('completed', seconds);
      settle({ status: 'completed', callSid: childSid, seconds: Math.round(seconds) });
    };
    const offStop = run.onStop(() => {
      if (answeredAt !== null) return hungUpWhileBridged();
      status.ended('canceled', 0);
      settle({ status: 'canceled', callSid: childSid, seconds: 0 });
    });
    /** The `<Dial>`'s ring ran out (its timeout plus Twilio's 5 s). */
    later(options.ringSeconds * 1000, () => {
      if (answeredAt !== null) return;
      status.ended('no-answer', 0);
      settle({ status: 'no-answer', callSid: childSid, seconds: 0 });
    });
    /** The phone hangs up: bridged, the `<Dial>` ends; moved, its own call ends. */
    let child: AppCall | null = null;
    function phoneHungUp(): void {
      if (child) {
        child.hungUpByCaller = true;
        endAppCall(child);
      } else if (!settled && answeredAt !== null) hungUpWhileBridged();
    }
    const fork = phoneFork(childSid, call, script, from, status, {
      takeOver: () => {
        if (settled || answeredAt === null || !line) return null;
        unbridge?.();
        unbridge = null;
        handedOver = true;
        // The child's call goes on: its status callback reports `completed` when it finally ends.
        settle({ status: 'completed', callSid: childSid, seconds: Math.round(secondsNow()) });
        return line.leg;
      },
      cancel: () => {
        if (settled) return;
        if (answeredAt !== null) return hungUpWhileBridged();
        status.ended('canceled', 0);
        settle({ status: 'canceled', callSid: childSid, seconds: 0 });
      },
      redirect: (start) => {
        const taken = line;
        const leg = fork.takeOver();
        if (!leg || !taken) throw NOT_IN_PROGRESS();
        child = answeredCall(childSid, null, script.number, leg, fields, answeredAt ?? vs.now());
        void mode.runCall(child, start, null, (final, seconds) => {
          status.ended(final, seconds);
          void taken.close();
        });
      },
    });
    mode.forks.set(childSid, fork);
    mode.registry.setStatus(listed, 'ringing');
    status.ringing();
    ringCaller(vs, call);
    // Early media: the caller hears ringback until the phone answers.
    callerLeg.play(TONES.ringback);
    if (script.answer === 'busy')
      later(script.ringSeconds * 1000, () => {
        status.ended('busy', 0);
        settle({ status: 'busy', callSid: childSid, seconds: 0 });
      });
    if (lineReady)
      later(script.ringSeconds * 1000, () => {
        void lineReady.then(
          (ready) => {
            if (settled || call.ended) return;
            line = ready;
            phone.line = ready;
            answeredAt = vs.now();
            callerLeg.stopPlaying();
            unbridge = bridge(callerLeg, ready.leg);
            status.answered();
            answerCall(vs, call);
            runScript(vs, ready, script, phoneHungUp);
            if (options.timeLimit > 0)
              later(options.timeLimit * 1000, () => {
                if (!settled) hungUpWhileBridged();
              });
          },
          (err: unknown) => {
            if (settled) return;
            vs.log(`voice twin: ${noun.number}'s line could not be made: ${String(err)}`);
            status.ended('failed', 0);
            settle({ status: 'failed', callSid: childSid, seconds: 0 });
          },
        );
      });
  });
}

/** A call placed through the REST API to a number: the phone rings, answers, and the TwiML runs. */
export function placePhoneCall(
  vs: VoiceState,
  listed: TwinCall,
  start: Start,
  options: { timeout: number },
  status: StatusReporter,
  fields: {
    AccountSid: string;
    CallSid: string;
    From: string;
    To: string;
    Direction: 'outbound-api';
  },
): void {
  const mode = app(vs);
  const script = phoneAt(listed.to);
  if (!script || script.answer === 'failed') {
    vs.log(
      `voice twin: the call to ${listed.to} failed: ${script ? 'the number rejects calls' : 'no phone has this number on the twins'}`,
    );
    status.ended('failed', 0);
    return;
  }
  if (listed.status !== 'queued') {
    status.ended('canceled', 0);
    return;
  }
  const lineReady =
    script.answer === 'busy' || script.answer === 'no-answer'
      ? null
      : PhoneLine.open(vs.options.media);
  lineReady?.catch(() => undefined);
  let over = false;
  let call: AppCall | null = null;
  const timers: NodeJS.Timeout[] = [];
  const later = (ms: number, then: () => void): void => {
    const t = setTimeout(then, ms);
    t.unref();
    timers.push(t);
  };
  const phone: PhoneCall = {
    sid: listed.sid,
    script,
    other: listed.from,
    direction: 'to-phone',
    listed,
    line: null,
    hangUp: () => {
      if (!call) return;
      call.hungUpByCaller = true;
      endAppCall(call);
    },
  };
  keep(vs, phone);
  const stop = (final: FinalStatus): void => {
    if (over) return;
    over = true;
    for (const t of timers) clearTimeout(t);
    mode.forks.delete(listed.sid);
    void lineReady?.then((l) => l.close()).catch(() => undefined);
    status.ended(final, 0);
  };
  mode.forks.set(
    listed.sid,
    phoneFork(listed.sid, null, script, listed.from, status, {
      takeOver: () => null,
      cancel: () => stop('canceled'),
    }),
  );
  mode.registry.setStatus(listed, 'ringing');
  status.ringing();
  later(options.timeout * 1000, () => stop('no-answer'));
  if (script.answer === 'busy') later(script.ringSeconds * 1000, () => stop('busy'));
  if (lineReady)
    later(script.ringSeconds * 1000, () => {
      void lineReady.then(
        (line) => {
          if (over) return;
          over = true;
          for (const t of timers) clearTimeout(t);
          mode.forks.delete(listed.sid);
          phone.line = line;
          status.answered();
          const answered = answeredCall(
            listed.sid,
            null,
            script.number,
            line.leg,
            fields,
            vs.now(),
          );
          call = answered;
          void mode.runCall(answered, start, null, (final, seconds) => {
            status.ended(final, seconds);
            void line.close();
          });
          runScript(vs, line, script, phone.hangUp);
        },
        (err: unknown) => {
          vs.log(`voice twin: ${listed.to}'s line could not be made: ${String(err)}`);
          stop('failed');
        },
      );
    });
}

/**
 * A scripted phone calls `to`, one of the account's numbers: the number's Voice URL (the TwiML
 * app's) is asked as for any call from outside, and its TwiML runs on the phone's line.
 */
export async function callFromPhone(
  vs: VoiceState,
  script: PhoneScript,
  to: string,
): Promise<PhoneCall> {
  const mode = app(vs);
  const { application } = mode;
  const line = await PhoneLine.open(vs.options.media);
  const callSid = sid('CA');
  const fields: Record<string, string> = {
    AccountSid: application.accountSid,
    CallSid: callSid,
    CallStatus: 'ringing',
    Direction: 'inbound',
    From: script.number,
    Caller: script.number,
    To: to,
    Called: to,
    ApiVersion: '2010-04-01',
  };
  const listed = mode.registry.addCall({
    sid: callSid,
    accountSid: application.accountSid,
    parentCallSid: null,
    from: script.number,
    to,
    direction: 'inbound',
    status: 'ringing',
  });
  forget(vs, callSid);
  const status = statusReporter(
    application.statusCallback === null
      ? null
      : { url: application.statusCallback, method: 'POST', events: ['completed'] },
    {
      AccountSid: application.accountSid,
      CallSid: callSid,
      From: script.number,
      To: to,
      Direction: 'inbound',
    },
    mode.webhooks,
  );
  const call = appCall({
    sid: callSid,
    tempSid: callSid,
    conn: null,
    identity: script.number,
    leg: line.leg,
    fields,
    startedAt: vs.now(),
  });
  const phone: PhoneCall = {
    sid: callSid,
    script,
    other: to,
    direction: 'from-phone',
    listed,
    line,
    hangUp: () => {
      call.hungUpByCaller = true;
      endAppCall(call);
    },
  };
  keep(vs, phone);
  // The caller talks from the start (what it says before the answer goes nowhere); a phone that
  // hangs up part-way does so after its time from the answer.
  if (script.toneHz > 0) line.talk(steadyTone(script.toneHz));
  if (script.answer === 'hangs-up' && script.hangUpAfterSeconds !== null) {
    const after = script.hangUpAfterSeconds;
    call.onAnswered = () => setTimeout(phone.hangUp, after * 1000).unref();
  }
  void mode.runCall(
    call,
    { url: application.voiceUrl, method: 'POST' },
    application.voiceFallbackUrl === null
      ? null
      : { url: application.voiceFallbackUrl, method: 'POST' },
    (final, seconds) => {
      mode.registry.setStatus(listed, final);
      status.ended(final, seconds);
      void line.close();
    },
  );
  return phone;
}

/** A phone call as the twin-only route shows it. */
function view(call: PhoneCall): PhoneCallView {
  return {
    sid: call.sid,
    phone: call.script.number,
    other: call.other,
    direction: call.direction,
    status: call.listed.status,
    heard: call.line && call.listed.ended === null ? call.line.heard() : null,
  };
}

/** The phone network as the twin-only route (rest/phones.ts) reaches it. */
export function phoneNetwork(vs: VoiceState): PhoneNetwork {
  const mode = (): ReturnType<typeof app> => app(vs);
  const live = (callSid: string): PhoneCall => {
    const call = mode().phoneCalls.get(callSid);
    if (!call) throw new RestError(404, 20404, `No phone call ${callSid}`);
    return call;
  };
  return {
    phones: PHONES,
    async call(from, to) {
      const script = phoneAt(from);
      if (!script)
        throw new RestError(
          400,
          21212,
          `${from} is not one of the twins' phones (GET /twilio/phones)`,
        );
      const own = mode().application.phoneNumbers ?? [];
      if (!own.includes(to))
        throw new RestError(
          400,
          21211,
          `${to} is not one of the account's numbers (${own.join(', ') || 'it has none'})`,
        );
      return view(await callFromPhone(vs, script, to));
    },
    list(phone) {
      return [...mode().phoneCalls.values()]
        .filter((c) => phone === null || c.script.number === phone)
        .sort((a, b) => b.listed.created - a.listed.created)
        .map(view);
    },
    get: (callSid) => view(live(callSid)),
    async digits(callSid, digits) {
      const call = live(callSid);
      if (call.listed.status !== 'in-progress' || !call.line)
        throw new RestError(400, 21220, 'The call is not in progress: no digits can be sent.');
      await call.line.sendDigits(digits);
    },
    hangUp(callSid) {
      const call = live(callSid);
      if (call.listed.ended !== null) return;
      call.hangUp();
    },
  };
}
