/**
 * The TwiML writer the webhooks answer with writes exactly what the `twilio` package's VoiceResponse
 * writes for the same document: elements, attribute order and escaping.
 */
import twilio from 'twilio';
import { describe, expect, it } from 'vitest';
import { Twiml } from '../../../../server/calls/twiml-writer';

const awkward = `Tom & Jerry's "best" <offer>\tnow\r\nand later`;

describe('Twiml', () => {
  it('writes what VoiceResponse writes, escaping included', () => {
    const official = new twilio.twiml.VoiceResponse();
    official.say({ language: 'en-GB' }, awkward);
    official.play({}, 'https://example.com/a.wav?v=1&s=2');
    const dial = official.dial({
      timeout: 20,
      answerOnBridge: true,
      action: 'https://example.com/next?plan=1.abc&x="y"',
      callerId: '+442079460000',
    });
    for (const who of ['alice@example.com', awkward]) {
      const client = dial.client({
        statusCallback: 'https://example.com/leg',
        statusCallbackEvent: ['answered', 'completed'],
      });
      client.identity(who);
      client.parameter({ name: 'group', value: awkward });
    }
    official
      .dial({ timeout: 15 })
      .number({ statusCallback: 'https://example.com/leg' }, '+15551230000');
    official.record({
      action: 'https://example.com/vm?group=g&a=b',
      maxLength: 120,
      playBeep: true,
      finishOnKey: '#',
      recordingStatusCallbackEvent: ['completed'],
    });
    official.reject({ reason: 'busy' });
    official.hangup();

    const ours = new Twiml()
      .say({ language: 'en-GB' }, awkward)
      .play({}, 'https://example.com/a.wav?v=1&s=2')
      .dial(
        {
          timeout: 20,
          answerOnBridge: true,
          action: 'https://example.com/next?plan=1.abc&x="y"',
          callerId: '+442079460000',
        },
        ['alice@example.com', awkward].map((client) => ({
          client,
          attrs: {
            statusCallback: 'https://example.com/leg',
            statusCallbackEvent: ['answered', 'completed'],
          },
          parameters: { group: awkward },
        })),
      )
      .dial({ timeout: 15 }, [
        { number: '+15551230000', attrs: { statusCallback: 'https://example.com/leg' } },
      ])
      .record({
        action: 'https://example.com/vm?group=g&a=b',
        maxLength: 120,
        playBeep: true,
        finishOnKey: '#',
        recordingStatusCallbackEvent: ['completed'],
      })
      .reject({ reason: 'busy' })
      .hangup();

    expect(ours.toString()).toBe(official.toString());
  });

  it('an empty document is an empty Response, as VoiceResponse writes it', () => {
    expect(new Twiml().toString()).toBe(new twilio.twiml.VoiceResponse().toString());
  });
});
