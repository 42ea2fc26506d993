/**
 * The part of Voice Insights the app reads: a call's Call Summary
 * (https://www.twilio.com/docs/voice/voice-insights/api/call/call-summary-resource,
 * `GET https://insights.twilio.com/v1/Voice/{CallSid}/Summary`), answered for each browser leg from
 * the twin's own media counts as the leg closed. A Voice SDK call has a `client_edge` whose
 * `metrics.inbound` is the audio Twilio received from the browser and `metrics.outbound` what it
 * sent to it ("each edge of a call has metrics for both directions of the media stream";
 * https://www.twilio.com/docs/voice/voice-insights/api/call/details-call-summary). Twilio has a
 * partial summary "within ten minutes of a call ending" and a complete one within half an hour; the
 * twin's is `partial` as soon as the leg ends (its counts do not change after). A call with no
 * summary is 404 (20404), as Twilio answers before one is ready.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LegTotals } from '../media';
import { authorised, sendRestError, type Credentials } from './routes';

/** A browser leg's media, kept for its summary. */
export interface LegSummary {
  accountSid: string;
  identity: string;
  totals: LegTotals;
  endedAt: number;
}

/** How long a summary is kept, and how many at most (the oldest go first). */
const KEEP_MS = 60 * 60_000;
const MAX_KEPT = 5000;

/** The twin's summaries of browser legs, by their CA sid. */
export class LegSummaries {
  private readonly kept = new Map<string, LegSummary>();

  constructor(private readonly now: () => number = Date.now) {}

  keep(callSid: string, summary: Omit<LegSummary, 'endedAt'>): void {
    if (this.kept.size >= MAX_KEPT) {
      const oldest = this.kept.keys().next().value;
      if (oldest !== undefined) this.kept.delete(oldest);
    }
    this.kept.delete(callSid);
    this.kept.set(callSid, { ...summary, endedAt: this.now() });
  }

  get(callSid: string): LegSummary | undefined {
    const found = this.kept.get(callSid);
    if (found && found.endedAt < this.now() - KEEP_MS) {
      this.kept.delete(callSid);
      return undefined;
    }
    return found;
  }
}

/** The path the `twilio` package asks for a Call Summary at, under the product's mount. */
export const SUMMARY_PATH = /^\/v1\/Voice\/(CA[0-9a-f]{32})\/Summary$/;

/** The Call Summary resource's JSON for one leg (only the fields the twin knows). */
export function summaryJson(callSid: string, s: LegSummary) {
  const { totals } = s;
  return {
    account_sid: s.accountSid,
    call_sid: callSid,
    call_type: 'client',
    call_state: 'completed',
    processing_state: 'partial',
    end_time: new Date(s.endedAt).toISOString(),
    to: { connection: 'twilio_sdk', callee: `client:${s.identity}` },
    client_edge: {
      metrics: {
        inbound: { codec_name: totals.codec, packets_received: totals.packetsIn },
        outbound: {
          codec_name: totals.codec,
          packets_sent: totals.packetsOut,
          packets_lost: totals.lostAtBrowser,
        },
      },
    },
    url: `https://insights.twilio.com/v1/Voice/${callSid}/Summary`,
  };
}

/** Answers `GET /v1/Voice/{CallSid}/Summary` (the path under Insights' mount); false for others. */
export function insightsRest(summaries: LegSummaries, credentials: Credentials) {
  return function handle(req: IncomingMessage, res: ServerResponse): boolean {
    const url = new URL(req.url ?? '/', 'http://twin');
    const found = SUMMARY_PATH.exec(url.pathname);
    if (!found) return false;
    const error = (status: number, code: number, message: string): void =>
      sendRestError(res, status, code, message);
    if (!authorised(req, credentials))
      return (error(401, 20003, 'Authentication Error - invalid username'), true);
    if (req.method !== 'GET') return (error(405, 20004, 'Method not allowed'), true);
    const callSid = found[1]!;
    const summary = summaries.get(callSid);
    // Another account's call is not found either (its SID says nothing about the asker's).
    if (!summary || summary.accountSid !== credentials.accountSid)
      return (error(404, 20404, `The requested resource ${url.pathname} was not found`), true);
    res
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(JSON.stringify(summaryJson(callSid, summary)));
    return true;
  };
}
