/**
 * What keeps a caller routed when Twilio Sync is slow or down (issue 24): the webhook's deadline, the
 * voicemail a caller goes to when routing cannot be worked out in time, Twilio's Fallback URL, the
 * shared answers of every webhook, and the history row written even after a Sync outage. See
 * docs/twilio.md, "When Twilio is not at its best".
 */
import type { ServerResponse } from 'node:http';
import { HttpError } from '../platform/http/errors';
import { LATER_RETRIES, laterRetryMs } from '../twilio/client';
import type { Router } from '../platform/http/router';
import type { CallState } from './call-log';
import { createRowAmender } from './row-amend';
import { createRelayReader } from './relay';
import { readSignedForm } from '../twilio/signature';
import { Twiml } from './twiml-writer';
import { writePlan } from './twiml';
import type { TwilioWebhookDeps } from './webhook-deps';
import { TWILIO_PATHS } from '../../src/contracts/api';
import { CALLS } from '../../src/contracts/objects';
import type { CallRecord } from '../../src/contracts/records/call';
import type { StepNote } from '../../src/domain/routing/steps';

/**
 * How long routing may take before the caller goes to voicemail instead: Twilio waits 15 s for an
 * answer, connection time included, then fails the call over to the Fallback URL
 * (https://www.twilio.com/docs/api/errors/11205); this leaves most of that for the network.
 */
export const ROUTING_DEADLINE_MS = 6000;

export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

export function sendTwiml(res: ServerResponse, xml: string): void {
  res.writeHead(200, {
    'Content-Type': 'text/xml; charset=utf-8',
    'Content-Length': Buffer.byteLength(xml),
    'Cache-Control': 'no-store',
  });
  res.end(xml);
}

export function sendNothing(res: ServerResponse): void {
  res.writeHead(204, { 'Cache-Control': 'no-store' });
  res.end();
}

export const missing = (field: string): HttpError =>
  new HttpError(400, 'bad_request', `The webhook has no valid ${field}`);

const CALL_SID = /^CA[0-9a-fA-F]{32}$/;

export function callSidOf(params: Record<string, string>, field = 'CallSid'): string {
  const sid = params[field] ?? '';
  if (!CALL_SID.test(sid)) throw missing(field);
  return sid;
}

type Deps = Pick<
  TwilioWebhookDeps,
  | 'config'
  | 'calls'
  | 'data'
  | 'voicemailSeconds'
  | 'log'
  | 'rest'
  | 'historyTtlSeconds'
  | 'now'
  | 'callSummary'
>;

/**
 * The caller's way on when routing cannot be worked out in time (Sync slow or down, after the
 * client's retries and the caches' stale copies): the voicemail of the group the call is for (as last
 * known, read from nothing), or a message for the admins when even that is not known. Nobody hears
 * silence or Twilio's application error.
 */
export function createVoicemailFallback(
  deps: Deps,
  /** Keeps the steps for the row and tells them to a caller on a browser (webhooks.ts). */
  told: (state: CallState, notes: readonly StepNote[]) => void,
) {
  const { config, calls, data, log } = deps;
  async function toVoicemail(callSid: string, groupId: string, reason: string): Promise<string> {
    const state = calls.get(callSid);
    if (state) {
      state.reason = reason;
      state.groupId ??= groupId === '' ? null : groupId;
    }
    const response = new Twiml();
    const reached = await writePlan(
      response,
      { kind: 'voicemail', groupId, guidanceId: null, reason },
      {
        publicUrl: config.publicUrl,
        announcement: () => Promise.resolve(null),
        groupName: (id) => id,
        personName: (identity) => identity,
        callerId: null,
        voicemailSeconds: deps.voicemailSeconds,
        log,
      },
    );
    // The trail says why: "<reason> Voicemail: the caller can leave a message."
    if (state) told(state, reached.steps);
    return response.toString();
  }
  /** The group a call is for without reading Sync: what its state or the last groups read say. */
  const knownGroupOf = (callSid: string, to: string): string =>
    calls.get(callSid)?.groupId ?? data.peekGroupByNumber(to)?.id ?? '';
  return { toVoicemail, knownGroupOf };
}

/**
 * Twilio's Fallback URL (the numbers' VoiceFallbackUrl and the TwiML app's): asked when this server's
 * answer failed or came too late ("If Twilio is unable to retrieve or execute TwiML from your web
 * server, a request is immediately made to the number's Fallback URL", with ErrorCode and ErrorUrl:
 * https://www.twilio.com/docs/usage/security/availability-reliability). It reads nothing from Sync:
 * the caller goes to the voicemail of the group the number belongs to.
 */
export function registerFallbackRoute(
  router: Router,
  deps: Deps,
  fallback: ReturnType<typeof createVoicemailFallback>,
): void {
  router.on('POST', TWILIO_PATHS.fallback, async (ctx) => {
    const params = await readSignedForm(ctx.req, deps.config);
    const callSid = callSidOf(params);
    deps.log(
      `twilio fallback for ${callSid}: error ${params.ErrorCode ?? '?'} at ${params.ErrorUrl ?? '?'}`,
    );
    sendTwiml(
      ctx.res,
      await fallback.toVoicemail(
        callSid,
        fallback.knownGroupOf(callSid, params.To ?? ''),
        `Twilio could not use this server's answer (error ${params.ErrorCode ?? 'unknown'}).`,
      ),
    );
  });
}

/**
 * Appends a call's row; a failure (after the client's own retries) is tried again in the background
 * (5 s, 20 s, 80 s, 5 min, 20 min), since Twilio does not send a status callback again: a Sync outage
 * of a few minutes loses no history. Appending is not idempotent, and an append that timed out may
 * have been carried out (the client does not send it again: twilio/client.ts, `mayRetry`), so each
 * later try first looks for the row among the newest ({@link RECENT_ROWS}) and appends only when
 * it is not there: one row per call.
 */
/** How many of the newest rows a later try looks through for its own. */
export const RECENT_ROWS = 200;

export function createRowWriter(deps: Deps) {
  const amend = createRowAmender(deps);
  const relay = deps.callSummary
    ? createRelayReader({ calls: deps.calls, fetch: deps.callSummary, amend, log: deps.log })
    : null;
  /** The row of `callSid` if an earlier try wrote it after all (it timed out on the way back). */
  const alreadyWritten = async (callSid: string): Promise<number | null> => {
    const recent = await deps.rest.listItems(CALLS.name, RECENT_ROWS, 'desc');
    return recent.find((item) => item.data.callSid === callSid)?.index ?? null;
  };
  return async function writeRow(state: CallState, row: CallRecord, attempt = 0): Promise<void> {
    try {
      const found = attempt > 0 ? await alreadyWritten(state.callSid) : null;
      const index =
        found ?? (await deps.rest.pushListItem(CALLS.name, row, deps.historyTtlSeconds));
      state.written = { index, data: row, at: deps.now() };
      state.writing = false;
      // A report that came while it was appended (a browser's quality, a recording).
      await amend(state);
      // The media server's view, once Voice Insights has it (relay.ts).
      relay?.(state);
    } catch (err) {
      const last = attempt >= LATER_RETRIES;
      deps.log(
        `call ${state.callSid}: writing its history failed${last ? ', given up' : ', tried again later'}: ${err instanceof Error ? err.message : String(err)}`,
      );
      if (last) {
        state.writing = false;
        return;
      }
      const timer = setTimeout(() => {
        // A recording reported meanwhile is on the state: the row written later carries it.
        void writeRow(state, { ...row, voicemail: state.voicemail }, attempt + 1);
      }, laterRetryMs(attempt));
      timer.unref();
    }
  };
}
