/** A leg's status callbacks: the events asked for, in order, with Twilio's fields and values. */
import { describe, expect, it } from 'vitest';
import { parseTwiml } from '../../../../../server/twins/voice/twiml/parse';
import { statusReporter } from '../../../../../server/twins/voice/twiml/status';
import type { Params, WebhookClient } from '../../../../../server/twins/voice/twiml/webhook';

function recorder() {
  const sent: Params[] = [];
  const webhooks: WebhookClient = {
    twiml: () => Promise.reject(new Error('not used')),
    notify: (_target, params) => {
      sent.push(params);
      return Promise.resolve();
    },
  };
  return { sent, webhooks };
}

const fields = {
  AccountSid: 'AC1',
  CallSid: 'CA2',
  ParentCallSid: 'CA1',
  From: '+442079460000',
  To: 'client:ann_1',
  Direction: 'outbound-dial' as const,
};

const clientCallback = (events: string | null) => {
  const attr = events === null ? '' : ` statusCallbackEvent="${events}"`;
  const { verbs } = parseTwiml(
    `<Response><Dial><Client statusCallback="https://pbx.example.com/leg"${attr}>ann_1</Client></Dial></Response>`,
  );
  const dial = verbs[0]!;
  if (dial.verb !== 'Dial' || dial.nouns[0]!.kind !== 'client') throw new Error('not a client');
  return dial.nouns[0]!.statusCallback;
};

describe('status callbacks', () => {
  it('sends the events asked for, in order, numbered from 0, answered as in-progress', async () => {
    const { sent, webhooks } = recorder();
    const when = new Date('2026-11-26T10:00:00Z');
    const r = statusReporter(clientCallback('answered completed'), fields, webhooks, () => when);
    r.initiated();
    r.ringing();
    r.answered();
    r.ended('completed', 44.4);
    await r.settled();
    expect(sent).toEqual([
      {
        ...fields,
        ApiVersion: '2010-04-01',
        CallStatus: 'in-progress',
        CallbackSource: 'call-progress-events',
        SequenceNumber: '0',
        Timestamp: 'Thu, 26 Nov 2026 10:00:00 +0000',
      },
      {
        ...fields,
        ApiVersion: '2010-04-01',
        CallStatus: 'completed',
        CallbackSource: 'call-progress-events',
        SequenceNumber: '1',
        Timestamp: 'Thu, 26 Nov 2026 10:00:00 +0000',
        CallDuration: '44',
        Duration: '1',
      },
    ]);
  });

  it('without statusCallbackEvent only completed is sent, with the final status', async () => {
    const { sent, webhooks } = recorder();
    const r = statusReporter(clientCallback(null), fields, webhooks);
    r.initiated();
    r.ringing();
    r.ended('no-answer', 0);
    await r.settled();
    expect(sent.map((p) => [p.CallStatus, p.SequenceNumber, p.CallDuration])).toEqual([
      ['no-answer', '0', '0'],
    ]);
  });

  it('all four events when all are asked for', async () => {
    const { sent, webhooks } = recorder();
    const r = statusReporter(
      clientCallback('initiated ringing answered completed'),
      fields,
      webhooks,
    );
    r.initiated();
    r.ringing();
    r.answered();
    r.ended('completed', 61);
    await r.settled();
    expect(sent.map((p) => p.CallStatus)).toEqual([
      'initiated',
      'ringing',
      'in-progress',
      'completed',
    ]);
    expect(sent.at(-1)).toMatchObject({ CallDuration: '61', Duration: '2' });
  });

  it('nothing without a status callback', async () => {
    const { sent, webhooks } = recorder();
    const r = statusReporter(null, fields, webhooks);
    r.initiated();
    r.ended('completed', 3);
    await r.settled();
    expect(sent).toEqual([]);
  });
});
