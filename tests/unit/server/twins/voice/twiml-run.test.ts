/**
 * The voice twin runs an application's TwiML as Twilio does: webhooks signed as the `twilio`
 * package checks them, verbs in order, `action` answers followed, the 5 s `<Dial>` buffer, the
 * fallback URL and the application-error sentence. The application is a real HTTP server; the
 * call's audio side is a recording fake (this layer's unit test).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import twilio from 'twilio';
import { afterEach, describe, expect, it } from 'vitest';
import {
  APPLICATION_ERROR,
  runCall,
  type CallLeg,
  type DialOutcome,
  type RecordOutcome,
  type RunOptions,
} from '../../../../../server/twins/voice/twiml/run';
import {
  signature,
  webhookClient,
  type WebhookFailure,
} from '../../../../../server/twins/voice/twiml/webhook';

const TOKEN = 'twin-auth-token';
const ACCOUNT = 'AC00000000000000000000000000000000';

interface Seen {
  path: string;
  method: string;
  params: Record<string, string>;
  valid: boolean;
}

let server: Server | null = null;
afterEach(() => {
  server?.close();
  server = null;
});

/** An application answering each path with TwiML (or a status, or nothing for `hang`). */
async function app(
  routes: Record<string, string | number | { hang: true }>,
): Promise<{ base: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const base = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
      const url = new URL(req.url ?? '/', base);
      const params =
        req.method === 'POST'
          ? Object.fromEntries(new URLSearchParams(body))
          : Object.fromEntries(url.searchParams);
      const valid = twilio.validateRequest(
        TOKEN,
        String(req.headers['x-twilio-signature'] ?? ''),
        `${base}${req.url}`,
        req.method === 'POST' ? params : {},
      );
      seen.push({ path: url.pathname, method: req.method ?? '', params, valid });
      const route = routes[url.pathname];
      if (typeof route === 'object') return;
      if (typeof route === 'number') {
        res.writeHead(route).end();
        return;
      }
      res.writeHead(route === undefined ? 404 : 200, { 'Content-Type': 'text/xml' });
      res.end(route ?? '');
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const xml = (body: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?><Response>${body}</Response>`;

/** A call's audio side that writes down what it was asked and answers as told. */
function fakeLeg(answers: { dial?: DialOutcome[]; record?: RecordOutcome[] } = {}) {
  const did: string[] = [];
  const dials: { ringSeconds: number; identities: string[] }[] = [];
  const leg: CallLeg = {
    ended: false,
    say(text) {
      did.push(`say ${text}`);
      return Promise.resolve();
    },
    play(url) {
      did.push(`play ${url}`);
      return Promise.resolve();
    },
    pause(seconds) {
      did.push(`pause ${seconds}`);
      return Promise.resolve();
    },
    dial(nouns, options) {
      dials.push({
        ringSeconds: options.ringSeconds,
        identities: nouns.map((n) =>
          n.kind === 'client' ? n.identity : n.kind === 'number' ? n.number : n.name,
        ),
      });
      did.push('dial');
      return Promise.resolve(
        answers.dial?.shift() ?? { status: 'no-answer', callSid: null, seconds: 0 },
      );
    },
    record() {
      did.push('record');
      return Promise.resolve(answers.record?.shift() ?? { recording: null, digits: '' });
    },
    reject(reason) {
      did.push(`reject ${reason}`);
      (leg as { ended: boolean }).ended = true;
    },
    hangUp() {
      did.push('hangup');
      (leg as { ended: boolean }).ended = true;
    },
  };
  return { leg, did, dials };
}

/** Runs a call from `url` with the app's webhooks signed under TOKEN (and `extra` options). */
const runFrom = (leg: CallLeg, url: string, extra: Partial<RunOptions> = {}) =>
  runCall(
    leg,
    { url, method: 'POST' },
    { webhooks: webhookClient({ authToken: TOKEN }), callParams, ...extra },
  );

const callParams = () => ({
  AccountSid: ACCOUNT,
  CallSid: 'CA11111111111111111111111111111111',
  From: 'client:ann_1',
  To: '+442079460000',
  CallStatus: 'ringing',
  Direction: 'inbound',
  ApiVersion: '2010-04-01',
});

describe('webhook signatures', () => {
  it("match the twilio package's own check, for a POST and for a GET", () => {
    const url = 'https://pbx.example.com/api/twilio/voice?x=1';
    const params = { CallSid: 'CA1', From: '+15551234567', To: '+15557654321', Digits: '1234' };
    expect(twilio.validateRequest(TOKEN, signature(TOKEN, url, params), url, params)).toBe(true);
    expect(twilio.getExpectedTwilioSignature(TOKEN, url, params)).toBe(
      signature(TOKEN, url, params),
    );
    expect(
      twilio.validateRequest('another-token', signature(TOKEN, url, params), url, params),
    ).toBe(false);
    expect(twilio.validateRequest(TOKEN, signature(TOKEN, url, {}), url, {})).toBe(true);
  });
});

describe('running a call', () => {
  it('follows the document and each action, ringing 5 s longer than the timeout', async () => {
    const { base, seen } = await app({
      '/voice': xml(
        '<Say>Welcome</Say><Dial timeout="20" action="/next"><Client>ann_1</Client><Client>ben_2</Client></Dial><Say>not reached</Say>',
      ),
      '/next': xml(
        '<Play>https://example.com/greeting.wav</Play><Record action="/voicemail" maxLength="120" finishOnKey="#"/><Say>nothing recorded</Say>',
      ),
      '/voicemail': xml('<Say>Thank you</Say><Hangup/>'),
    });
    const { leg, did, dials } = fakeLeg({
      dial: [{ status: 'no-answer', callSid: null, seconds: 0 }],
      record: [{ recording: { sid: 'RE1', url: 'https://twin/RE1', seconds: 14 }, digits: '#' }],
    });
    await runFrom(leg, `${base}/voice`);
    expect(did).toEqual([
      'say Welcome',
      'dial',
      'play https://example.com/greeting.wav',
      'record',
      'say Thank you',
      'hangup',
    ]);
    expect(dials).toEqual([{ ringSeconds: 25, identities: ['ann_1', 'ben_2'] }]);
    expect(seen.map((s) => [s.path, s.valid])).toEqual([
      ['/voice', true],
      ['/next', true],
      ['/voicemail', true],
    ]);
    expect(seen[1]!.params).toMatchObject({
      DialCallStatus: 'no-answer',
      DialCallDuration: '0',
      CallSid: callParams().CallSid,
    });
    expect(seen[2]!.params).toMatchObject({
      RecordingSid: 'RE1',
      RecordingUrl: 'https://twin/RE1',
      RecordingDuration: '14',
      Digits: '#',
    });
  });

  it('goes on past <Record> when nothing was recorded, and hangs up at the end', async () => {
    const { base } = await app({ '/voice': xml('<Record action="/never"/><Say>Goodbye</Say>') });
    const { leg, did } = fakeLeg();
    await runFrom(leg, `${base}/voice`);
    expect(did).toEqual(['record', 'say Goodbye', 'hangup']);
  });

  it('asks the fallback URL when the voice URL fails, and says the application error without one', async () => {
    const { base, seen } = await app({ '/voice': 500, '/fallback': xml('<Say>Fallback</Say>') });
    const first = fakeLeg();
    const log: string[] = [];
    await runFrom(first.leg, `${base}/voice`, {
      fallback: { url: `${base}/fallback`, method: 'POST' },
      log: (m) => log.push(m),
    });
    expect(first.did).toEqual(['say Fallback', 'hangup']);
    expect(log[0]).toMatch(/^11200 /);
    expect(seen.map((s) => s.path)).toEqual(['/voice', '/fallback']);

    const second = fakeLeg();
    await runFrom(second.leg, `${base}/voice`);
    expect(second.did).toEqual([`say ${APPLICATION_ERROR}`, 'hangup']);
  });

  it('gives up on a webhook that does not answer in time (11205), and on TwiML that does not parse (12100)', async () => {
    const { base } = await app({
      '/slow': { hang: true },
      '/broken': '<Response><Say>Hi</Response>',
    });
    for (const path of ['/slow', '/broken']) {
      const { leg, did } = fakeLeg();
      const log: string[] = [];
      await runFrom(leg, `${base}${path}`, {
        webhooks: webhookClient({ authToken: TOKEN, timeoutMs: 300 }),
        log: (m) => log.push(m),
      });
      expect(did).toEqual([`say ${APPLICATION_ERROR}`, 'hangup']);
      expect(log[0]).toMatch(path === '/slow' ? /^11205 / : /^12100 /);
    }
  });

  it("records a webhook not answered in time as Twilio's debugger does (11205); a status callback is dropped", async () => {
    const { base, seen } = await app({ '/slow': { hang: true }, '/status': { hang: true } });
    const failures: WebhookFailure[] = [];
    const webhooks = webhookClient({
      authToken: TOKEN,
      timeoutMs: 300,
      failed: (f) => failures.push(f),
    });
    await expect(
      webhooks.twiml({ url: `${base}/slow`, method: 'POST' }, { CallSid: 'CA1' }),
    ).rejects.toMatchObject({ code: 11205 });
    // A status callback's failure is not thrown: the callback is dropped, and recorded.
    await webhooks.notify({ url: `${base}/status`, method: 'POST' }, { CallSid: 'CA2' });
    expect(failures).toEqual([
      expect.objectContaining({ code: 11205, url: `${base}/slow`, method: 'POST', callSid: 'CA1' }),
      expect.objectContaining({
        code: 11205,
        url: `${base}/status`,
        method: 'POST',
        callSid: 'CA2',
      }),
    ]);
    // Once: Twilio does not send it again.
    expect(seen.filter((r) => r.path === '/status')).toHaveLength(1);
  });

  it('a GET webhook carries the fields in its query, signed over the whole URL', async () => {
    const { base, seen } = await app({
      '/voice': xml('<Redirect method="GET">/again</Redirect>'),
      '/again': xml('<Hangup/>'),
    });
    const { leg, did } = fakeLeg();
    await runFrom(leg, `${base}/voice`);
    expect(did).toEqual(['hangup']);
    expect(seen[1]).toMatchObject({ path: '/again', method: 'GET', valid: true });
    expect(seen[1]!.params.CallSid).toBe(callParams().CallSid);
  });

  it('<Reject> ends the call with its reason', async () => {
    const { base } = await app({ '/voice': xml('<Reject reason="busy"/><Say>not reached</Say>') });
    const { leg, did } = fakeLeg();
    await runFrom(leg, `${base}/voice`);
    expect(did).toEqual(['reject busy']);
  });
});

describe('a run stopped by a redirect', () => {
  it('runs inline TwiML, its relative URLs read against the base given', async () => {
    const { base, seen } = await app({ '/next': xml('<Say>after</Say>') });
    const { leg, did } = fakeLeg();
    await runCall(
      leg,
      { twiml: xml('<Say>inline</Say><Redirect>/next</Redirect>'), base: `${base}/voice` },
      { webhooks: webhookClient({ authToken: TOKEN }), callParams },
    );
    expect(did).toEqual(['say inline', 'say after', 'hangup']);
    expect(seen.map((s) => s.path)).toEqual(['/next']);
  });

  it("asks a stopped <Dial>'s action with DialCallStatus as it stood, and runs nothing it answers", async () => {
    const { base, seen } = await app({
      '/voice': xml('<Dial action="/after"><Client>ben_2</Client></Dial><Say>not reached</Say>'),
      '/after': xml('<Say>not run</Say><Hangup/>'),
    });
    const { leg, did } = fakeLeg();
    // The redirect stops the leg while the <Dial> is bridged: it ends completed.
    leg.dial = () => {
      did.push('dial');
      (leg as { ended: boolean }).ended = true;
      return Promise.resolve({ status: 'completed', callSid: 'CA2', seconds: 7 });
    };
    await runFrom(leg, `${base}/voice`);
    expect(did).toEqual(['dial']);
    expect(seen.map((s) => s.path)).toEqual(['/voice', '/after']);
    expect(seen[1]!.params).toMatchObject({
      DialCallStatus: 'completed',
      DialCallSid: 'CA2',
      DialCallDuration: '7',
    });
  });
});
