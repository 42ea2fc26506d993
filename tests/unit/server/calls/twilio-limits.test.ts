/**
 * What Twilio's documentation limits, checked against the TwiML this server writes (issue 24's
 * review): ten `<Client>` nouns per `<Dial>`, the 5 s Twilio adds to every `<Dial timeout>`, a voice
 * for every `<Say>` language, and client identifiers of letters, digits and underscores. Each test
 * fails on the TwiML written before the fix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTwiml } from '../../../../server/twins/voice/twiml/parse';
import { sayRefusal } from '../../../../server/twins/voice/twiml/voices';
import { CALL_PARAMETERS } from '../../../../src/contracts/call-parameters';
import { createSpeech } from '../../../../server/guidance/speech';
import {
  dialSeconds,
  MAX_CLIENTS_PER_DIAL,
  SAY_VOICES,
  sayVoice,
  speak,
} from '../../../../server/calls/twiml';
import { Twiml } from '../../../../server/calls/twiml-writer';
import { WED_OPEN, seedTeam, vid } from './fixture';
import {
  ACCOUNT_SID,
  incomingCall,
  sid,
  startTwilioApp,
  type TwilioTestApp,
} from '../twilio/support';
import { actions, pathOf } from './twiml-support';
import { removeDir, tempDir } from '../support';

const CALLER = '+447700900123';
const BIG_NUMBER = '+442079460001';
/** Twelve people on a ring-all group, all available. */
const CROWD = Array.from({ length: 12 }, (_, i) => `person.${i + 1}@example.com`);

let t: TwilioTestApp;
beforeAll(async () => {
  t = await startTwilioApp({ now: WED_OPEN });
  await seedTeam(t);
  // The fixture's Support line becomes a ring-all group of twelve, open all week.
  t.api.setMapItem('groups', 'grp-support', {
    name: 'Everyone',
    number: BIG_NUMBER,
    members: CROWD,
    strategy: 'simultaneous',
    ringTimeout: 30,
  });
  t.api.lists.delete('forwarding:grp-support');
  for (const who of CROWD)
    t.api.setMapItem('presence', who, { status: 'available', onCall: false }, 3600 * 24 * 365);
}, 60_000);
afterAll(() => t.close());

const clients = (xml: string): string[] =>
  [...xml.matchAll(/<Identity>([^<]*)<\/Identity>/g)].map((m) => m[1]!);
const dials = (xml: string): number => (xml.match(/<Dial /g) ?? []).length;

describe('ring-all beyond ten people', () => {
  it('rings in batches of ten, the next batch when nobody in one answers, then the rules', async () => {
    const callSid = sid();
    const res = await t.webhook('/api/twilio/voice', incomingCall(callSid, CALLER, BIG_NUMBER));
    const first = await res.text();
    expect(dials(first)).toBe(1);
    expect(clients(first)).toEqual(CROWD.slice(0, MAX_CLIENTS_PER_DIAL).map(vid));
    expect(MAX_CLIENTS_PER_DIAL).toBe(10);

    // Nobody of the first ten answers: the other two ring, each batch for the ring time.
    const second = await (
      await t.webhook(pathOf(actions(first)[0]!), {
        AccountSid: ACCOUNT_SID,
        CallSid: callSid,
        DialCallStatus: 'no-answer',
        From: CALLER,
        To: BIG_NUMBER,
      })
    ).text();
    expect(clients(second)).toEqual(CROWD.slice(10).map(vid));
    expect(second).toContain(`<Dial timeout="${dialSeconds(30)}"`);
    // And after them, the group's voicemail (it has no rules).
    const third = await (
      await t.webhook(pathOf(actions(second)[0]!), {
        AccountSid: ACCOUNT_SID,
        CallSid: callSid,
        DialCallStatus: 'no-answer',
        From: CALLER,
        To: BIG_NUMBER,
      })
    ).text();
    expect(third).toContain('<Record ');
  });
});

describe('ring times as set', () => {
  it('the Dial timeout is the ring time less the 5 s Twilio adds', () => {
    expect(dialSeconds(20)).toBe(15);
    expect(dialSeconds(30)).toBe(25);
    expect(dialSeconds(120)).toBe(115);
    // Twilio takes 5 s at least: a ring time under 10 s rings 10 s there.
    expect(dialSeconds(7)).toBe(5);
  });
});

describe('the group on an incoming call', () => {
  it('each Client carries the group under the name the page reads', async () => {
    const res = await t.webhook('/api/twilio/voice', incomingCall(sid(), CALLER, BIG_NUMBER));
    const xml = await res.text();
    expect(xml).toContain(`<Parameter name="${CALL_PARAMETERS.group}" value="Everyone"/>`);
    expect(xml).toContain(`<Parameter name="${CALL_PARAMETERS.groupId}" value="grp-support"/>`);
    expect(CALL_PARAMETERS.group).toBe('Group');
  });
});

describe('client identifiers', () => {
  it('every Client is letters, digits and underscores', async () => {
    const res = await t.webhook('/api/twilio/voice', incomingCall(sid(), CALLER, BIG_NUMBER));
    for (const identity of clients(await res.text()))
      expect(identity).toMatch(/^[A-Za-z0-9_]{1,256}$/);
  });
});

describe('a voice for each language', () => {
  it('Say names a voice of its language', () => {
    const response = new Twiml();
    speak(response, { say: 'Willkommen.', voice: sayVoice('de') });
    speak(response, { say: 'Hello.', voice: sayVoice('en-us') });
    speak(response, { say: 'Olá.', voice: sayVoice('pt-br') });
    expect(response.toString()).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response>' +
        '<Say language="de-DE" voice="Polly.Marlene">Willkommen.</Say>' +
        '<Say language="en-US" voice="Polly.Joanna">Hello.</Say>' +
        '<Say language="pt-BR" voice="Polly.Vitoria">Olá.</Say></Response>',
    );
  });

  it('every language callers may hear (the curated list) gets a voice of its own locale', async () => {
    const dir = tempDir('sb-voices-');
    try {
      const languages = await createSpeech({ dataDir: dir }).languages();
      let voiced = 0;
      for (const { code } of languages) {
        const v = sayVoice(code);
        if (v === null) continue;
        voiced++;
        // Never a language without its voice, nor a voice of another language.
        expect(SAY_VOICES[v.language]).toBe(v.voice);
        if (v.voice.startsWith('Google.')) expect(v.voice).toContain(v.language);
        // The <Say> written for it, as the voice twin reads it (which knows Twilio's voices apart
        // from this server), is spoken: the voice speaks the language.
        const response = new Twiml();
        speak(response, { say: 'Hello.', voice: v });
        const [say] = parseTwiml(response.toString()).verbs;
        expect(say).toMatchObject({ verb: 'Say', voice: v.voice, language: v.language });
        if (say?.verb === 'Say') expect(sayRefusal(say.voice, say.language), code).toBeNull();
        // Without its voice, Twilio's default (`man`) would say it: only in its five languages.
        if (!/^(en-US|en-GB|es-ES|fr-FR|de-DE)$/.test(v.language))
          expect(sayRefusal(null, v.language), code).toMatch(/^13511/);
      }
      // The curated languages (server/guidance/languages.ts) are those both engines speak.
      expect(voiced).toBe(languages.length);
      for (const code of ['en-us', 'en-gb', 'de', 'fr-fr', 'es', 'es-419', 'it', 'nl', 'pl'])
        expect(sayVoice(code), code).not.toBeNull();
    } finally {
      removeDir(dir);
    }
  }, 60_000);
});
