/**
 * The voice twin reads TwiML as Twilio documents it: the documentation's own examples, the app's
 * own answers, and the documented errors and limits.
 */
import { describe, expect, it } from 'vitest';
import {
  MAX_CLIENTS_PER_DIAL,
  parseTwiml,
  TwimlError,
} from '../../../../../server/twins/voice/twiml/parse';
import { Twiml } from '../../../../../server/calls/twiml-writer';
import { ringClients } from '../../../../../server/calls/twiml';
import { voiceIdentityOf } from '../../../../../src/contracts/voice-identity';

const doc = (body: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?><Response>${body}</Response>`;

function code(source: string): number | null {
  try {
    parseTwiml(source);
    return null;
  } catch (err) {
    return err instanceof TwimlError ? err.code : -1;
  }
}

describe("Twilio's documentation examples", () => {
  it('<Dial> with a bare number (twiml/dial)', () => {
    const { verbs, warnings } = parseTwiml(
      '<?xml version="1.0" encoding="UTF-8"?>\n<Response>\n    <Dial>415-123-4567</Dial>\n</Response>',
    );
    expect(warnings).toEqual([]);
    expect(verbs).toMatchObject([
      { verb: 'Dial', nouns: [{ kind: 'number', number: '415-123-4567' }], timeout: 30 },
    ]);
  });

  it('<Client> with <Identity> and <Parameter>s (twiml/client)', () => {
    const { verbs } = parseTwiml(`<?xml version="1.0" encoding="UTF-8"?>
<Response>
  <Dial>
    <Client>
      <Identity>user_jane</Identity>
      <Parameter name="FirstName" value="Jane"/>
      <Parameter name="LastName" value="Doe"/>
    </Client>
  </Dial>
</Response>`);
    expect(verbs).toMatchObject([
      {
        verb: 'Dial',
        nouns: [
          {
            kind: 'client',
            identity: 'user_jane',
            parameters: { FirstName: 'Jane', LastName: 'Doe' },
          },
        ],
      },
    ]);
  });

  it('<Say> then <Record> then <Say> (twiml/record)', () => {
    const { verbs } = parseTwiml(`<?xml version="1.0" encoding="UTF-8"?>
<Response>
    <Say>
        Please leave a message at the beep.
        Press the star key when finished.
    </Say>
    <Record
        action="http://foo.edu/handleRecording.php"
        method="GET"
        maxLength="20"
        finishOnKey="*"
        />
    <Say>I did not receive a recording</Say>
</Response>`);
    expect(verbs.map((v) => v.verb)).toEqual(['Say', 'Record', 'Say']);
    expect(verbs[1]).toMatchObject({
      action: 'http://foo.edu/handleRecording.php',
      method: 'GET',
      maxLength: 20,
      finishOnKey: '*',
      playBeep: true,
      timeout: 5,
    });
  });

  it('<Say> with a voice and a language, <Play> with loop, <Pause>, <Redirect>, <Reject>, <Hangup>', () => {
    const { verbs, warnings } = parseTwiml(
      doc(
        '<Say voice="Polly.Amy" language="en-GB">Hello</Say><Play loop="10">https://api.twilio.com/cowbell.mp3</Play>' +
          '<Pause length="5"/><Redirect method="POST">https://example.com/next</Redirect><Reject reason="busy"/><Hangup/>',
      ),
    );
    expect(warnings).toEqual([]);
    expect(verbs).toEqual([
      { verb: 'Say', text: 'Hello', voice: 'Polly.Amy', language: 'en-GB', loop: 1 },
      { verb: 'Play', url: 'https://api.twilio.com/cowbell.mp3', loop: 10 },
      { verb: 'Pause', seconds: 5 },
      { verb: 'Redirect', url: 'https://example.com/next', method: 'POST' },
      { verb: 'Reject', reason: 'busy' },
      { verb: 'Hangup' },
    ]);
  });

  it('<Dial><Conference> with its attributes (twiml/conference)', () => {
    const { verbs } = parseTwiml(
      doc(
        '<Dial><Conference startConferenceOnEnter="false" endConferenceOnExit="true" waitUrl="https://example.com/wait" statusCallback="https://example.com/conf" statusCallbackEvent="start end join leave">Room 1234</Conference></Dial>',
      ),
    );
    expect(verbs[0]).toMatchObject({
      nouns: [
        {
          kind: 'conference',
          name: 'Room 1234',
          startConferenceOnEnter: false,
          endConferenceOnExit: true,
          waitUrl: 'https://example.com/wait',
          waitMethod: 'POST',
        },
      ],
    });
    const get = parseTwiml(
      doc(
        '<Dial><Conference waitUrl="https://example.com/wait.wav" waitMethod="GET">r</Conference></Dial>',
      ),
    );
    expect(get.verbs[0]).toMatchObject({ nouns: [{ waitMethod: 'GET' }] });
  });
});

describe('documented errors and limits', () => {
  it('12100 for a document that is not well-formed XML (errors/12100)', () => {
    expect(code(' <?xml version="1.0"?><Response/>')).toBe(12100); // space before the header
    expect(code('<Response><Say>Hi</Response>')).toBe(12100); // improperly nested
    expect(code('<Response><Say loop=2>Hi</Say></Response>')).toBe(12100); // unquoted attribute
    expect(code('<Response><Say>Fish & chips</Say></Response>')).toBe(12100); // unescaped &
    expect(code('<Response><Say>Hi</Say>')).toBe(12100); // unclosed
    expect(code('<!DOCTYPE x [<!ENTITY a "b">]><Response/>')).toBe(12100);
  });

  it('12102 when the root is not <Response> (errors/12102)', () => {
    expect(code('<Reply><Say>Hi</Say></Reply>')).toBe(12102);
  });

  it('12200 for a verb in the wrong case, an unknown verb or unexpected nesting (errors/12200)', () => {
    expect(code(doc('<say>Hi</say>'))).toBe(12200);
    expect(code(doc('<Speak>Hi</Speak>'))).toBe(12200);
    expect(code(doc('<Say><Play>x</Play></Say>'))).toBe(12200);
    expect(code(doc('<Dial><Say>Hi</Say></Dial>'))).toBe(12200);
  });

  it('an unknown attribute is a warning, as Twilio reports it, and the verb still runs', () => {
    const { verbs, warnings } = parseTwiml(
      doc('<Dial statusCallbackEvent="answered">+15551234567</Dial>'),
    );
    expect(verbs).toHaveLength(1);
    expect(warnings).toEqual([
      "Attribute 'statusCallbackEvent' is not allowed to appear in element 'Dial'.",
    ]);
  });

  it(`at most ${MAX_CLIENTS_PER_DIAL} <Client> nouns in one <Dial> (twiml/client)`, () => {
    const clients = (n: number): string =>
      Array.from({ length: n }, (_, i) => `<Client>agent_${i}</Client>`).join('');
    expect(code(doc(`<Dial>${clients(10)}</Dial>`))).toBeNull();
    expect(code(doc(`<Dial>${clients(11)}</Dial>`))).toBe(12200);
  });

  it('a Voice identity is letters, digits and underscores only (twiml/client)', () => {
    expect(code(doc('<Dial><Client>ann_agent_2</Client></Dial>'))).toBeNull();
    expect(code(doc('<Dial><Client>ann@example.com</Client></Dial>'))).toBe(12200);
    expect(code(doc('<Dial><Client><Identity>ann agent</Identity></Client></Dial>'))).toBe(12200);
  });

  it('values out of their documented range are refused', () => {
    expect(code(doc('<Dial timeout="601">+15551234567</Dial>'))).toBe(12200);
    expect(code(doc('<Dial answerOnBridge="yes">+15551234567</Dial>'))).toBe(12200);
    expect(code(doc('<Reject reason="later"/>'))).toBe(12200);
    expect(code(doc('<Record finishOnKey="a"/>'))).toBe(12200);
  });
});

describe("the app's own TwiML", () => {
  it('a ring of colleagues reads back as written: identities, parameters, callbacks, timeout', () => {
    const response = new Twiml();
    ringClients(
      response,
      {
        publicUrl: 'https://pbx.example.com',
        announcement: () => Promise.resolve(null),
        groupName: () => 'Sales',
        personName: (identity: string) => identity,
        callerId: null,
        voicemailSeconds: 120,
        log: () => {},
      },
      { groupId: 'grp_1', identities: ['ann@example.com', 'ben@example.com'], seconds: 20 },
      { noAnswer: null, busy: null },
      { Group: 'Sales' },
    );
    const { verbs, warnings } = parseTwiml(response.toString());
    expect(warnings).toEqual([]);
    expect(verbs).toHaveLength(1);
    const dial = verbs[0]!;
    if (dial.verb !== 'Dial') throw new Error('not a dial');
    expect(dial.answerOnBridge).toBe(true);
    expect(dial.action).toMatch(/^https:\/\/pbx\.example\.com\//);
    // The app writes each person's Voice identity, which the twin accepts (letters, digits, _).
    expect(dial.nouns.map((n) => (n.kind === 'client' ? n.identity : null))).toEqual([
      voiceIdentityOf('ann@example.com'),
      voiceIdentityOf('ben@example.com'),
    ]);
    expect(dial.nouns[0]).toMatchObject({
      parameters: { Group: 'Sales' },
      statusCallback: { method: 'POST', events: ['ringing', 'answered', 'completed'] },
    });
  });
});
