/**
 * The voice twin as Twilio runs a TwiML application: a call placed by the Voice SDK reaches the
 * application's Voice URL (a signed POST with Twilio's fields), and the TwiML it answers is run by
 * the interpreter (run.ts) over the twin's media (leg.ts). This is how every call runs on the twins
 * (`SWITCHBOARD_BACKEND` `embedded` and `twilio-twins`): the server's webhooks and TwiML are the
 * ones it sends to Twilio, unchanged. A call lives until it hangs up, not until its first TwiML
 * runs out: a REST redirect (engine.ts) stops the run and starts another on the same call
 * (`startRun`), and a dialled leg redirected becomes a call of its own (`runAppCall`).
 *
 * Twilio's documentation followed here:
 * - the Voice URL request of a call from the SDK (https://www.twilio.com/docs/voice/sdks/javascript/twiliodevice#deviceconnectconnectoptions
 *   and https://www.twilio.com/docs/usage/webhooks/voice-webhooks): `AccountSid`, `ApplicationSid`,
 *   `CallSid`, `CallStatus=ringing`, `Direction=inbound`, `From` and `Caller` as
 *   `client:<identity>`, `ApiVersion`, and every parameter the SDK's `connect({ params })` sent
 *   (`To` among them) as a field of its own;
 * - the application's status callback (https://www.twilio.com/docs/voice/api/call-resource#statuscallback):
 *   the call's end with its final status and `CallDuration`;
 * - the access token (https://www.twilio.com/docs/iam/access-tokens): HS256 under the API key's
 *   secret, `iss` the key, `sub` the account.
 */
import { randomBytes } from 'node:crypto';
import { answerLeg } from '../media';
import { sid, type Conn, type VoiceState, type TwimlApplication, type AppMode } from '../model';
import type { ClientMessage } from '../protocol';
import { failBeforeRinging, send, sendError, unknownCall } from '../wire';
import { appCall, endAppCall, forget, keepSummary } from './call';
import { appEngine } from './engine';
import { runAppCall } from './run-call';
import { statusReporter } from './status';
import { createNetwork } from '../network';
import { webhookClient } from './webhook';
import { VoiceRegistry } from '../rest/resources';
import { voiceRest } from '../rest/routes';
import { insightsRest, LegSummaries } from '../rest/insights';
import { phonesRest } from '../rest/phones';
import { phoneNetwork } from './number';

export function appMode(vs: VoiceState, application: TwimlApplication): AppMode {
  const log = vs.log;
  const registry = new VoiceRegistry(vs.now);
  const summaries = new LegSummaries(vs.now);
  const credentials = {
    accountSid: application.accountSid,
    authToken: application.authToken,
    apiKeys: { [application.apiKey]: application.apiSecret },
  };
  const mode: AppMode = {
    application,
    registry,
    summaries,
    insights: insightsRest(summaries, credentials),
    rest: voiceRest({
      registry,
      engine: appEngine(vs),
      credentials,
      phoneNumbers: () => application.phoneNumbers ?? [],
      // `<Record>` keeps each recording in the voicemail store under its RE sid (leg.ts), on disk:
      // it outlives a restart, as Twilio keeps a recording until it is deleted.
      recordings: {
        file: (recordingSid) => vs.options.voicemail?.find(recordingSid)?.path ?? null,
        remove: (recordingSid) => vs.options.voicemail?.remove(recordingSid) ?? false,
      },
    }),
    webhooks: webhookClient({
      authToken: application.authToken,
      ...(application.fetch ? { fetch: application.fetch } : {}),
      log: (m) => log(`voice twin: ${m}`),
      // Twilio's debugger: each failed webhook is an error in the account's log (Notifications).
      failed: (f) => {
        registry.notice({
          accountSid: application.accountSid,
          callSid: f.callSid,
          errorCode: f.code,
          messageText: f.message,
          requestUrl: f.url,
          requestMethod: f.method,
        });
        log(`voice twin: error ${f.code} for ${f.callSid ?? 'no call'}: ${f.message}`);
      },
      // Benchmarks only (SWITCHBOARD_TEST_WEBHOOK_TIMES=1): each TwiML request's time, logged.
      ...(process.env.SWITCHBOARD_TEST_WEBHOOK_TIMES === '1'
        ? {
            timed: (url: string, ms: number) =>
              log(`voice twin: TIMING webhook ${new URL(url).pathname} ${ms.toFixed(2)} ms`),
          }
        : {}),
    }),
    network: createNetwork(vs.options.network ?? { mode: 'ideal', seed: 0 }),
    calls: new Map(),
    forks: new Map(),
    rooms: new Map(),
    lost: new Map(),
    phoneCalls: new Map(),
    runCall: (call, start, fallback, ended) => runAppCall(vs, call, start, fallback, ended),
    phones: (req, res) => phones(req, res),
  };
  const phones = phonesRest(phoneNetwork(vs), credentials);
  return mode;
}

/** The HMAC key of the application's tokens: the API secret as the `twilio` package signs with it. */
export const tokenSecret = (application: TwimlApplication): Buffer =>
  Buffer.from(application.apiSecret, 'utf8');

/** A call placed by the SDK: the application's Voice URL is asked, and its TwiML run. */
export async function placeAppCall(
  vs: VoiceState,
  conn: Conn,
  msg: Extract<ClientMessage, { type: 'invite' }>,
): Promise<void> {
  const mode = vs.app!;
  const { application } = mode;
  if (!conn.outgoing) {
    failBeforeRinging(vs, conn, msg.callsid, 31201, 'This token may not place calls.');
    return;
  }
  if (mode.calls.has(msg.callsid)) {
    sendError(vs, conn, 31100, 'A call with this id already exists', { callsid: msg.callsid });
    return;
  }
  const identity = conn.identity!;
  const fields: Record<string, string> = {};
  // The SDK's `connect({ params })` arrive as fields of their own (To among them).
  for (const [k, v] of msg.params) fields[k] = v;
  Object.assign(fields, {
    AccountSid: application.accountSid,
    ApplicationSid: application.applicationSid,
    CallSid: sid('CA'),
    CallStatus: 'ringing',
    Direction: 'inbound',
    From: `client:${identity}`,
    Caller: `client:${identity}`,
    To: fields.To ?? '',
    ApiVersion: '2010-04-01',
  });
  const call = appCall({
    sid: fields.CallSid!,
    tempSid: msg.callsid,
    conn,
    identity,
    // Handed to the SDK with the answer: it resumes the call on a new socket with it.
    reconnect: randomBytes(16).toString('hex'),
    leg: null,
    fields,
    startedAt: vs.now(),
  });
  const listed = mode.registry.addCall({
    sid: call.sid,
    accountSid: application.accountSid,
    parentCallSid: null,
    from: fields.From!,
    to: fields.To!,
    direction: 'inbound',
    status: 'ringing',
  });
  forget(vs, call.sid);
  const status = statusReporter(
    application.statusCallback === null
      ? null
      : { url: application.statusCallback, method: 'POST', events: ['completed'] },
    {
      AccountSid: application.accountSid,
      CallSid: call.sid,
      From: fields.From!,
      To: fields.To!,
      Direction: 'inbound',
    },
    mode.webhooks,
    undefined,
    mode.network,
  );
  mode.calls.set(call.sid, call);
  mode.calls.set(call.tempSid, call);
  const forgetCall = (): void => {
    mode.calls.delete(call.sid);
    mode.calls.delete(call.tempSid);
  };
  try {
    call.leg = await answerLeg(msg.sdp, vs.options.media);
    keepSummary(vs, call.sid, identity, call.leg);
  } catch (err) {
    vs.log(`voice twin: the caller's leg of ${call.sid} could not be made: ${String(err)}`);
    failBeforeRinging(vs, conn, msg.callsid, 31000, 'The call could not be placed.');
    forgetCall();
    call.endStatus = 'failed';
    endAppCall(call);
    mode.registry.setStatus(listed, 'failed');
    status.ended('failed', 0);
    return;
  }
  if (call.ended) {
    forgetCall();
    void call.leg.close();
    mode.registry.setStatus(listed, 'canceled');
    status.ended('canceled', 0);
    return;
  }
  // Nothing is said to the SDK yet: the TwiML answers (`answer`), rings someone (`ringing`, with
  // early media: `<Dial>`, call.ts ringCaller) or refuses it (`hangup` to its own id).
  await runAppCall(
    vs,
    call,
    { url: application.voiceUrl, method: 'POST' },
    application.voiceFallbackUrl === null
      ? null
      : { url: application.voiceFallbackUrl, method: 'POST' },
    (final, seconds) => {
      mode.registry.setStatus(listed, final);
      status.ended(final, seconds);
    },
  );
}

/** The SDK's answer, decline or hang-up of a dialled leg, or the caller's hang-up; false when not ours. */
export function appMessage(
  vs: VoiceState,
  conn: Conn,
  msg:
    | { type: 'answer'; callsid: string; sdp: string }
    | { type: 'hangup' | 'reject'; callsid: string },
): boolean {
  const mode = vs.app;
  if (!mode) return false;
  const fork = mode.forks.get(msg.callsid);
  if (fork) {
    // Only the identity the leg rings may answer, decline or hang it up: anyone else (a forged
    // frame naming a sid they learnt) is told there is no such call, as for any sid not theirs.
    if (conn.identity !== fork.identity) unknownCall(vs, conn, msg.callsid);
    else if (msg.type === 'answer') fork.onAnswer(conn, msg.sdp);
    // The SDK sends `hangup` for an incoming call only once it was accepted (Call._disconnect skips
    // a pending one): before the answer reaches the server, that is the person turning it down
    // (Hang up while the microphone prompt shows, or the microphone refused), as a reject is.
    else fork.onGone(conn, msg.type === 'reject' || fork.answeredBy === null);
    return true;
  }
  const call = mode.calls.get(msg.callsid);
  if (!call || msg.type === 'answer') return false;
  if (call.conn !== conn) return false;
  call.hungUpByCaller = true;
  endAppCall(call);
  return true;
}

/** Whether `callsid` is a live call of this socket's (placed by it, or a leg it answered). */
export function appCallOf(vs: VoiceState, conn: Conn, callsid: string): boolean {
  const mode = vs.app;
  if (!mode) return false;
  const fork = mode.forks.get(callsid);
  if (fork) return fork.answeredBy === conn || fork.devices.has(conn);
  return mode.calls.get(callsid)?.conn === conn;
}

/** The server stops: every call ends (their status callbacks go out while they still can). */
export function endAllAppCalls(vs: VoiceState): void {
  for (const call of new Set(vs.app?.calls.values() ?? [])) endAppCall(call);
}

/**
 * The SDK's `invite` with the `reconnect` token of a call it was rung for: it sends one whenever its
 * signalling says `connected` again, after a new token's `listen` too (the Voice SDK's
 * `Call._onConnected`), and the call goes on there, answered again with the token. A ringing leg rings
 * on that socket too. False when it is no such call (the caller is then told it has ended).
 */
export function appReconnect(
  vs: VoiceState,
  conn: Conn,
  msg: { callsid: string; reconnect: string | null },
): boolean {
  const mode = vs.app;
  if (!mode || msg.reconnect === null || conn.identity === null) return false;
  const fork = mode.forks.get(msg.callsid);
  if (fork) {
    if (fork.identity !== conn.identity || fork.reconnect.token !== msg.reconnect) return false;
    if (!fork.answeredBy) {
      fork.devices.add(conn);
      return true;
    }
    if (fork.answeredBy !== conn) {
      // Its old socket was lost and the leg is kept for the SDK's reconnect window: it moves here.
      if (!rebind(mode, fork.sid, conn)) return false;
      fork.answeredBy = conn;
    }
    const { token, sdp } = fork.reconnect;
    send(vs, conn, 'answer', { callsid: fork.sid, sdp, reconnect: token });
    return true;
  }
  const call = mode.calls.get(msg.callsid);
  if (!call || call.ended || call.identity !== conn.identity) return false;
  if (call.reconnect !== msg.reconnect) return false;
  if (call.conn !== conn) {
    if (!rebind(mode, call.sid, conn)) return false;
    call.conn = conn;
  }
  send(vs, conn, 'answer', {
    callsid: call.sid,
    sdp: call.leg?.localSdp ?? '',
    reconnect: msg.reconnect,
  });
  return true;
}

/** A kept leg (its socket lost) taken up by the socket its SDK reconnected on; false when none. */
function rebind(mode: AppMode, callSid: string, conn: Conn): boolean {
  const kept = mode.lost.get(callSid);
  if (!kept || kept.identity !== conn.identity) return false;
  clearTimeout(kept.timer);
  mode.lost.delete(callSid);
  return true;
}

/**
 * A socket went: its rings stop, and its answered calls end, or, when its SDK asked for a reconnect
 * window (`listen`'s `reconnectTimeout`, at most 30 s) and holds the call's reconnect token, are kept
 * that long for the SDK to come back on a new socket (`appReconnect`), as Twilio keeps them.
 */
export function appSocketLost(vs: VoiceState, conn: Conn): void {
  const mode = vs.app;
  if (!mode) return;
  const windowMs = Math.min(Math.max(conn.reconnectTimeout, 0), 30) * 1000;
  const keep = (callSid: string, end: () => void): void => {
    if (windowMs === 0 || conn.identity === null) return end();
    const timer = setTimeout(() => {
      mode.lost.delete(callSid);
      end();
    }, windowMs);
    timer.unref();
    mode.lost.set(callSid, { identity: conn.identity, timer });
  };
  for (const fork of [...mode.forks.values()])
    if (fork.devices.has(conn)) fork.onGone(conn, false);
    else if (fork.answeredBy === conn) keep(fork.sid, () => fork.onGone(conn, false));
  for (const call of new Set(mode.calls.values()))
    if (call.conn === conn) {
      const end = (): void => {
        call.hungUpByCaller = true;
        endAppCall(call);
      };
      if (call.answered && call.reconnect !== undefined) keep(call.sid, end);
      else end();
    }
}
