/**
 * Runs a call's TwiML as Twilio does (https://www.twilio.com/docs/voice/twiml): verbs one after
 * another; a verb with an `action` asks that URL and runs its answer instead of the rest of the
 * document; `<Redirect>` does the same; the end of the document hangs up. What happens to the audio
 * (saying, playing, ringing, recording) is the call's {@link CallLeg}: the voice twin's media side,
 * or a fake in unit tests.
 *
 * - `<Dial>` rings its nouns for `timeout` plus the 5 s Twilio adds
 *   (https://www.twilio.com/docs/voice/twiml/dial#timeout), then, with an `action`, asks it with
 *   `DialCallStatus` (completed, answered, busy, no-answer, failed, canceled), `DialCallSid` and
 *   `DialCallDuration` (https://www.twilio.com/docs/voice/twiml/dial#action); without one the
 *   document goes on.
 * - `<Record>` with an `action` asks it with `RecordingUrl`, `RecordingSid`, `RecordingDuration`
 *   and `Digits`; when nothing was recorded the document goes on to the next verb instead
 *   (https://www.twilio.com/docs/voice/twiml/record#action).
 * - A webhook that fails (no answer in 15 s, not 2xx, TwiML that does not parse) goes to the
 *   fallback URL when there is one, else the caller hears Twilio's application-error sentence and
 *   the call ends (https://www.twilio.com/docs/usage/troubleshooting/debugging-your-application).
 */
import { DIAL_TIMEOUT_BUFFER, parseTwiml, TwimlError, type DialNoun, type Verb } from './parse';
import { WebhookError, type Params, type WebhookClient, type WebhookTarget } from './webhook';

/** What a caller hears when the application's TwiML cannot be had. */
export const APPLICATION_ERROR = 'We are sorry, an application error has occurred. Goodbye.';

export type DialCallStatus =
  'completed' | 'answered' | 'busy' | 'no-answer' | 'failed' | 'canceled';

export interface DialOutcome {
  status: DialCallStatus;
  /** The answered (or last tried) leg's sid, if one was made. */
  callSid: string | null;
  /** Seconds the bridged call lasted. */
  seconds: number;
}

export interface RecordOutcome {
  /** Null when nothing was recorded. */
  recording: { sid: string; url: string; seconds: number } | null;
  /** The key that ended it, or 'hangup'. */
  digits: string;
}

/** The audio side of one call: what the interpreter asks of it. */
export interface CallLeg {
  say(
    text: string,
    options: { voice: string | null; language: string | null; loop: number },
  ): Promise<void>;
  play(url: string, loop: number): Promise<void>;
  pause(seconds: number): Promise<void>;
  /** Rings `nouns` for `ringSeconds` (the buffer included) and bridges the first to answer. */
  dial(
    nouns: readonly DialNoun[],
    options: {
      ringSeconds: number;
      answerOnBridge: boolean;
      callerId: string | null;
      timeLimit: number;
    },
  ): Promise<DialOutcome>;
  record(options: {
    maxLength: number;
    timeout: number;
    finishOnKey: string;
    playBeep: boolean;
  }): Promise<RecordOutcome>;
  reject(reason: 'rejected' | 'busy'): void;
  hangUp(): void;
  /** True once the caller has gone: the interpreter stops. */
  readonly ended: boolean;
}

export interface RunOptions {
  webhooks: WebhookClient;
  /** The call's own request fields (CallSid, AccountSid, From, To, Direction, CallStatus...). */
  callParams: () => Params;
  /** The application's fallback URL (VoiceFallbackUrl), if any. */
  fallback?: WebhookTarget | null;
  log?: (message: string) => void;
}

/**
 * Where a run starts: a webhook to ask, or a document given inline (the Call resource's `Twiml`
 * parameter, https://www.twilio.com/docs/voice/api/call-resource#update-a-call-resource), whose
 * relative URLs are read against `base`.
 */
export type Start = WebhookTarget | { twiml: string; base: string };

/** Twilio follows at most this many documents in one call before it stops (a loop guard). */
const MAX_DOCUMENTS = 100;

async function fetchDocument(
  target: Start,
  params: Params,
  options: RunOptions,
): Promise<Document | null> {
  const log = options.log ?? (() => {});
  if ('twiml' in target) {
    try {
      const parsed = parseTwiml(target.twiml);
      for (const w of parsed.warnings) log(`12200 inline TwiML: ${w}`);
      return { verbs: parsed.verbs, base: target.base };
    } catch (err) {
      if (!(err instanceof TwimlError)) throw err;
      log(`${err.code} inline TwiML: ${err.message}`);
      return null;
    }
  }
  const tryOne = async (t: WebhookTarget): Promise<Document> => {
    const parsed = parseTwiml(await options.webhooks.twiml(t, params));
    for (const w of parsed.warnings) log(`12200 ${t.url}: ${w}`);
    return { verbs: parsed.verbs, base: t.url };
  };
  try {
    return await tryOne(target);
  } catch (err) {
    if (!(err instanceof WebhookError || err instanceof TwimlError)) throw err;
    log(`${err.code} ${err.message}`);
    if (!options.fallback) return null;
    try {
      return await tryOne(options.fallback);
    } catch (again) {
      if (!(again instanceof WebhookError || again instanceof TwimlError)) throw again;
      log(`${again.code} fallback: ${again.message}`);
      return null;
    }
  }
}

/** Runs the call from the application's voice URL until it hangs up. */
export async function runCall(leg: CallLeg, start: Start, options: RunOptions): Promise<void> {
  let doc = await fetchDocument(start, options.callParams(), options);
  for (let documents = 1; ; documents += 1) {
    if (leg.ended) return;
    if (doc === null) {
      await leg.say(APPLICATION_ERROR, { voice: null, language: null, loop: 1 });
      leg.hangUp();
      return;
    }
    if (documents > MAX_DOCUMENTS) {
      options.log?.('the call followed too many documents: hanging up');
      leg.hangUp();
      return;
    }
    const next = await runDocument(leg, doc, options);
    if (next === 'done') {
      if (!leg.ended) leg.hangUp();
      return;
    }
    doc = await fetchDocument(next.target, next.params, options);
  }
}

type Next = 'done' | { target: WebhookTarget; params: Params };

/** A document's verbs and the URL it came from (a relative `action` is resolved against it). */
interface Document {
  verbs: readonly Verb[];
  base: string;
}

async function runDocument(leg: CallLeg, doc: Document, options: RunOptions): Promise<Next> {
  const at = (url: string, method: 'GET' | 'POST'): WebhookTarget => ({
    url: new URL(url, doc.base).toString(),
    method,
  });
  for (const v of doc.verbs) {
    if (leg.ended) return 'done';
    switch (v.verb) {
      case 'Say':
        await leg.say(v.text, v);
        break;
      case 'Play':
        await leg.play(v.url, v.loop);
        break;
      case 'Pause':
        await leg.pause(v.seconds);
        break;
      case 'Dial': {
        const outcome = await leg.dial(v.nouns, {
          ringSeconds: v.timeout + DIAL_TIMEOUT_BUFFER,
          answerOnBridge: v.answerOnBridge,
          callerId: v.callerId,
          timeLimit: v.timeLimit,
        });
        if (v.action === null) break;
        const params: Record<string, string> = {
          ...options.callParams(),
          DialCallStatus: outcome.status,
          DialCallDuration: String(outcome.seconds),
        };
        if (outcome.callSid) params.DialCallSid = outcome.callSid;
        return { target: at(v.action, v.method), params };
      }
      case 'Record': {
        const outcome = await leg.record(v);
        if (outcome.recording === null) break; // nothing recorded: the next verb
        const { sid, url, seconds } = outcome.recording;
        if (v.recordingStatusCallback) {
          const cb = v.recordingStatusCallback;
          void options.webhooks.notify(at(cb.url, cb.method), {
            AccountSid: options.callParams().AccountSid ?? '',
            CallSid: options.callParams().CallSid ?? '',
            RecordingSid: sid,
            RecordingUrl: url,
            RecordingStatus: 'completed',
            RecordingDuration: String(seconds),
            RecordingChannels: '1',
            RecordingSource: 'RecordVerb',
          });
        }
        if (v.action === null) break;
        return {
          target: at(v.action, v.method),
          params: {
            ...options.callParams(),
            RecordingUrl: url,
            RecordingSid: sid,
            RecordingDuration: String(seconds),
            Digits: outcome.digits,
          },
        };
      }
      case 'Redirect':
        return { target: at(v.url, v.method), params: options.callParams() };
      case 'Reject':
        leg.reject(v.reason);
        return 'done';
      case 'Hangup':
        leg.hangUp();
        return 'done';
    }
  }
  return 'done';
}
