/**
 * A leg's status callbacks as Twilio sends them
 * (https://www.twilio.com/docs/voice/twiml/number#attributes-status-callback-event and the Call
 * resource's StatusCallbackEvent, https://www.twilio.com/docs/voice/api/call-resource):
 * - only the events the TwiML or the API request asked for (`completed` alone when none was named);
 * - `answered` is reported with `CallStatus=in-progress`; `completed` with the leg's final status
 *   (completed, busy, no-answer, failed, canceled), `CallDuration` and `Duration` (seconds, and
 *   minutes rounded up);
 * - each request carries `CallbackSource=call-progress-events`, a `SequenceNumber` counting from 0
 *   over the requests actually sent, and a `Timestamp` in RFC 2822 form;
 * - `SequenceNumber` is "the order in which the events were fired, starting from 0. Although events
 *   are fired in order, they are made as separate HTTP requests, and there is no guarantee they will
 *   arrive in the same order" (the Call resource's StatusCallbackEvent, above): in the twin's `ideal`
 *   network (the default) they go out one at a time in the order they happened (a callback is sent
 *   once the one before it was answered or failed); in its `real` network (../network.ts) each may be
 *   late, sent twice, or overtake the one before it, as the seed draws.
 */
import type { Callback, StatusEvent } from './parse';
import type { Params, WebhookClient } from './webhook';
import type { TwilioNetwork } from '../network';

export type FinalStatus = 'completed' | 'busy' | 'no-answer' | 'failed' | 'canceled';

export interface LegFields {
  AccountSid: string;
  CallSid: string;
  ParentCallSid?: string;
  From: string;
  To: string;
  Direction: 'inbound' | 'outbound-api' | 'outbound-dial';
}

export interface StatusReporter {
  initiated(): void;
  ringing(): void;
  answered(): void;
  ended(status: FinalStatus, seconds: number): void;
  /** Resolves once every callback so far was sent (tests, shutdown). */
  settled(): Promise<void>;
}

const CALL_STATUS: Readonly<Record<StatusEvent, string>> = {
  initiated: 'initiated',
  ringing: 'ringing',
  answered: 'in-progress',
  completed: 'completed',
};

export function statusReporter(
  callback: Callback | null,
  fields: LegFields,
  webhooks: WebhookClient,
  now: () => Date = () => new Date(),
  network?: TwilioNetwork,
): StatusReporter {
  let sequence = 0;
  let chain: Promise<void> = Promise.resolve();
  /** Callbacks sent apart from the chain (the `real` network), until each was sent. */
  const loose = new Set<Promise<void>>();
  const wanted = new Set(callback?.events ?? []);

  function send(event: StatusEvent, extra: Record<string, string> = {}): void {
    if (!callback || !wanted.has(event)) return;
    const params: Params = {
      ...fields,
      ApiVersion: '2010-04-01',
      CallStatus: CALL_STATUS[event],
      CallbackSource: 'call-progress-events',
      SequenceNumber: String(sequence++),
      Timestamp: now().toUTCString().replace('GMT', '+0000'),
      ...extra,
    };
    const target = { url: callback.url, method: callback.method };
    const plan = network?.callback() ?? { ordered: true, delaysMs: [0] };
    if (plan.ordered) {
      chain = chain.then(() => webhooks.notify(target, params));
      return;
    }
    for (const ms of plan.delaysMs) {
      const sent: Promise<void> = new Promise<void>((resolve) => {
        setTimeout(resolve, ms).unref();
      })
        .then(() => webhooks.notify(target, params))
        .finally(() => loose.delete(sent));
      loose.add(sent);
    }
  }

  return {
    initiated: () => send('initiated'),
    ringing: () => send('ringing'),
    answered: () => send('answered'),
    ended(status, seconds) {
      const whole = Math.max(0, Math.round(seconds));
      send('completed', {
        CallStatus: status,
        CallDuration: String(whole),
        Duration: String(Math.ceil(whole / 60)),
      });
    },
    settled: async () => {
      await chain;
      while (loose.size > 0) await Promise.all([...loose]);
    },
  };
}
