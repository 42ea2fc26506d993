/**
 * Issue 13 benchmark, the Twilio half of `npm run bench routing`: how long the real server takes to
 * answer Twilio's voice webhook (signature check, the group and everyone's presence read from Sync
 * through the short cache, the routing engine, TwiML written) under load, against a static answer
 * (`GET /api/config`) from the same server measured the same way in the same run. Target: webhook
 * p95 at most 2× the static p95.
 *
 * No network: the server runs in Twilio mode (a child process, as `npm start` runs it) against a
 * local stand-in of Twilio's REST API (tests/support/twilio-api.ts) holding a team of eight and two
 * groups (all at once, and in order with a no-answer rule); the webhooks are signed here with the
 * test auth token, as Twilio signs them. Requests go `CONCURRENCY` at a time over keep-alive
 * connections, static and webhook batches alternating so both see the same machine.
 */
import { Agent, request } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks';
import { startServer, type RunningServer } from '../support/server';
import { startTwilioApi, type TwilioApiStandIn } from '../support/twilio-api';
import { fmt, median, percentile } from './report';

const TOTAL = Number(process.env.BENCH_ROUTING_REQUESTS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_ROUTING_CONCURRENCY ?? 20);
const ROUNDS = 3;

const ACCOUNT_SID = 'AC0123456789abcdef0123456789abcdef';
const API_KEY = 'SK0123456789abcdef0123456789abcdef';
const API_SECRET = 'bench-api-secret-0123456789abcdef';
const AUTH_TOKEN = '0123456789abcdef0123456789abcdef';
const SERVICE_SID = 'IS0123456789abcdef0123456789abcdef';
const PUBLIC_URL = 'https://switchboard.example.com';
const SALES = '+442079460000';
const SUPPORT = '+442079460001';

function seed(api: TwilioApiStandIn): void {
  const people = Array.from({ length: 8 }, (_, i) => `agent${i}@example.com`);
  for (const p of people)
    api.setMapItem('presence', p, { status: 'available', onCall: false }, 86_400);
  const allDay = { start: '00:00', end: '24:00' };
  const week = Object.fromEntries(
    ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [allDay]]),
  );
  api.setMapItem('guidance', 'gd-open', {
    kind: 'tts',
    text: 'Welcome to Sales.',
    language: 'en-gb',
  });
  api.setMapItem('groups', 'grp-sales', {
    name: 'Sales',
    number: SALES,
    members: people.slice(0, 5),
    strategy: 'simultaneous',
    ringTimeout: 20,
    guidance: { open: 'gd-open' },
  });
  api.setDocument('schedule:grp-sales', { timeZone: 'Europe/London', week });
  api.setDocument('calendar:grp-sales', {
    holidays: [{ id: 'h', label: 'Boxing Day', start: '2030-12-26', end: '2030-12-26' }],
  });
  api.setMapItem('groups', 'grp-support', {
    name: 'Support',
    number: SUPPORT,
    members: people,
    strategy: 'sequential',
    ringTimeout: 15,
  });
  api.setDocument('schedule:grp-support', { timeZone: 'America/New_York', week });
  api.pushListItem('forwarding:grp-support', {
    when: 'noAnswer',
    after: 60,
    target: { kind: 'number', number: '+15551230000' },
    order: 0,
  });
}

interface Shot {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body: string;
}

let callCounter = 0;
function voiceWebhook(): Shot {
  callCounter++;
  const path = '/api/twilio/voice';
  const params = {
    AccountSid: ACCOUNT_SID,
    ApiVersion: '2010-04-01',
    CallSid: `CA${callCounter.toString(16).padStart(32, '0')}`,
    CallStatus: 'ringing',
    Direction: 'inbound',
    From: '+447700900123',
    To: callCounter % 2 ? SALES : SUPPORT,
  };
  return {
    method: 'POST',
    path,
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      'X-Twilio-Signature': getExpectedTwilioSignature(AUTH_TOKEN, `${PUBLIC_URL}${path}`, params),
    },
    body: new URLSearchParams(params).toString(),
  };
}

const staticShot = (): Shot => ({ method: 'GET', path: '/api/config', headers: {}, body: '' });

/** Sends `count` requests made by `make`, `CONCURRENCY` in flight; the answer times in ms. */
async function fire(
  server: RunningServer,
  agent: Agent,
  count: number,
  make: () => Shot,
): Promise<number[]> {
  const shots = Array.from({ length: count }, make);
  const times: number[] = [];
  let next = 0;
  const one = (shot: Shot): Promise<void> =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const req = request(
        {
          host: '127.0.0.1',
          port: server.port,
          method: shot.method,
          path: shot.path,
          agent,
          headers: {
            ...shot.headers,
            ...(shot.body ? { 'Content-Length': Buffer.byteLength(shot.body) } : {}),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 200)
              reject(new Error(`${shot.path} answered ${res.statusCode}`));
            else {
              times.push(performance.now() - started);
              resolve();
            }
          });
        },
      );
      req.on('error', reject);
      req.end(shot.body || undefined);
    });
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < shots.length) await one(shots[next++]!);
    }),
  );
  return times;
}

export async function benchRoutingWebhook(): Promise<string> {
  const api = await startTwilioApi({
    accountSid: ACCOUNT_SID,
    apiKey: API_KEY,
    apiSecret: API_SECRET,
    serviceSid: SERVICE_SID,
  });
  seed(api);
  const server = await startServer({
    env: {
      SWITCHBOARD_BACKEND: 'twilio',
      TWILIO_ACCOUNT_SID: ACCOUNT_SID,
      TWILIO_API_KEY: API_KEY,
      TWILIO_API_SECRET: API_SECRET,
      TWILIO_AUTH_TOKEN: AUTH_TOKEN,
      TWILIO_SYNC_SERVICE_SID: SERVICE_SID,
      TWILIO_TWIML_APP_SID: 'AP0123456789abcdef0123456789abcdef',
      TWILIO_PHONE_NUMBERS: `${SALES},${SUPPORT}`,
      SWITCHBOARD_PUBLIC_URL: PUBLIC_URL,
      GOOGLE_CLIENT_ID: 'bench.apps.googleusercontent.com',
      SWITCHBOARD_TWILIO_API_URL: api.url,
      // BENCH_ROUTING_CPU_PROF=<dir> writes the server's CPU profile there (cpu-profile.ts).
      ...(process.env.BENCH_ROUTING_CPU_PROF
        ? {
            NODE_OPTIONS: `--import tsx --import ${resolve(import.meta.dirname, 'cpu-profile.ts')}`,
            SWITCHBOARD_CPU_PROF_DIR: process.env.BENCH_ROUTING_CPU_PROF,
          }
        : {}),
    },
  });
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  try {
    // Warm up: the announcement rendered once, caches filled, connections open, JIT warm.
    await fire(server, agent, 200, voiceWebhook);
    await fire(server, agent, 200, staticShot);
    const webhook: number[] = [];
    const baseline: number[] = [];
    const per = Math.ceil(TOTAL / ROUNDS);
    for (let round = 0; round < ROUNDS; round++) {
      baseline.push(...(await fire(server, agent, per, staticShot)));
      webhook.push(...(await fire(server, agent, per, voiceWebhook)));
    }
    const restReads = api.requests.filter((r) => r.method === 'GET').length;
    const p95 = percentile(webhook, 95) / percentile(baseline, 95);
    return [
      `Twilio voice webhook, ${webhook.length} signed requests (${CONCURRENCY} in flight), against GET /api/config from the same server (${baseline.length}):`,
      '',
      '| | p50 (ms) | p95 (ms) |',
      '| --- | --- | --- |',
      `| static answer | ${fmt(median(baseline), 2)} | ${fmt(percentile(baseline, 95), 2)} |`,
      `| voice webhook (route + TwiML) | ${fmt(median(webhook), 2)} | ${fmt(percentile(webhook, 95), 2)} |`,
      '',
      `Webhook p95 = **${fmt(p95, 2)}×** the static p95 (target at most 2×); p50 ratio ${fmt(median(webhook) / median(baseline), 2)}×. ` +
        `Sync REST reads sent to the stand-in during the whole run: ${restReads} (the rest came from the cache).`,
    ].join('\n');
  } finally {
    agent.destroy();
    await server.stop();
    server.cleanup();
    await api.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await benchRoutingWebhook());
}
