/**
 * A leg's status callbacks: the events asked for, in order, with Twilio's fields and values; in the
 * twin's `real` network, late, twice or out of order as the seed draws, the same for the same seed.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createNetwork, networkFromEnv } from '../../../../../server/twins/voice/network';
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

describe('status callbacks on the real network', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Every event of `legs` legs, each asked for, sent over a `real` network with `seed`. */
  async function deliveries(seed: number, legs: number): Promise<string[]> {
    vi.useFakeTimers();
    const { sent, webhooks } = recorder();
    const network = createNetwork({ mode: 'real', seed });
    const reporters = Array.from({ length: legs }, (_, i) =>
      statusReporter(
        clientCallback('initiated ringing answered completed'),
        { ...fields, CallSid: `CA${i}` },
        webhooks,
        () => new Date(0),
        network,
      ),
    );
    for (const r of reporters) {
      r.initiated();
      r.ringing();
      r.answered();
      r.ended('completed', 5);
    }
    const settled = Promise.all(reporters.map((r) => r.settled()));
    await vi.runAllTimersAsync();
    await settled;
    return sent.map((p) => `${p.CallSid}#${p.SequenceNumber} ${p.CallStatus}`);
  }

  it('may be late, twice or out of order, each carrying the SequenceNumber it was fired with', async () => {
    const seen = await deliveries(7, 10);
    const perLeg = new Map<string, number[]>();
    for (const d of seen) {
      const [leg, n] = d.split(' ')[0]!.split('#');
      perLeg.set(leg!, [...(perLeg.get(leg!) ?? []), Number(n)]);
    }
    const numbers = [...perLeg.values()];
    // Every event arrives, at least once.
    for (const got of numbers) expect(new Set(got)).toEqual(new Set([0, 1, 2, 3]));
    // Some more than once, and some leg's callbacks overtake one fired before them.
    expect(seen.length).toBeGreaterThan(40);
    expect(numbers.some((got) => got.some((n, i) => i > 0 && n < got[i - 1]!))).toBe(true);
  });

  it('the same seed makes the same choices; another seed others', async () => {
    const once = await deliveries(1234, 5);
    expect(await deliveries(1234, 5)).toEqual(once);
    expect(await deliveries(4321, 5)).not.toEqual(once);
  });

  it('in the ideal network (the default) they go out one at a time, in order', async () => {
    const { sent, webhooks } = recorder();
    const r = statusReporter(
      clientCallback('initiated ringing answered completed'),
      fields,
      webhooks,
      () => new Date(0),
      createNetwork({ mode: 'ideal', seed: 7 }),
    );
    r.initiated();
    r.ringing();
    r.answered();
    r.ended('completed', 5);
    await r.settled();
    expect(sent.map((p) => p.SequenceNumber)).toEqual(['0', '1', '2', '3']);
  });

  it('is asked for by the environment, with a seed, or a fresh one printed; a bad one is refused', () => {
    expect(networkFromEnv({})).toMatchObject({ mode: 'ideal' });
    expect(
      networkFromEnv({ SWITCHBOARD_TWINS_NETWORK: 'real', SWITCHBOARD_TWINS_SEED: '42' }),
    ).toEqual({ mode: 'real', seed: 42 });
    const fresh = networkFromEnv({ SWITCHBOARD_TWINS_NETWORK: 'real' });
    expect(fresh.mode).toBe('real');
    expect(Number.isInteger(fresh.seed)).toBe(true);
    expect(() => networkFromEnv({ SWITCHBOARD_TWINS_SEED: 'x1' })).toThrow(/whole number/);
    expect(() => networkFromEnv({ SWITCHBOARD_TWINS_NETWORK: 'fast' })).toThrow(/real or ideal/);
  });
});
