/**
 * The media server's own view of a call's browser sides, added to its history row (`relay`) once
 * Twilio has it: each browser leg's Call Summary from Voice Insights
 * (https://www.twilio.com/docs/voice/voice-insights/api/call/call-summary-resource). Twilio has a
 * partial summary "within ten minutes of a call ending" and a complete one within half an hour, so
 * the summaries are asked for a few times after the row is written ({@link SUMMARY_DELAYS_MS}); the
 * voice twin has them as soon as the legs end. The resource needs Voice Insights Advanced Features:
 * an account without them is refused (401/403), and its rows keep `relay` empty (logged once).
 */
import type { RelayLeg } from '../../src/contracts/records/call-quality';
import type { CallLog, CallState } from './call-log';
import type { TwilioClient } from '../twilio/client';

/** After the row is written: at once (the twin), then within Twilio's ten and thirty minutes. */
export const SUMMARY_DELAYS_MS: readonly number[] = [1000, 60_000, 11 * 60_000, 31 * 60_000];

/** One leg's summary as the row needs it; null when there is none yet; 'refused' when never. */
export type LegMedia = Omit<RelayLeg, 'side' | 'identity'>;
export type SummaryAnswer = LegMedia | null | 'refused';

const count = (v: unknown): number =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0;

/**
 * A Call Summary's `client_edge` as a row's side: `metrics.inbound` is what Twilio received from the
 * browser, `metrics.outbound` what it sent to it and how much of that the browser reported lost
 * (https://www.twilio.com/docs/voice/voice-insights/api/call/details-call-summary). Null for a
 * summary with no client edge (not a browser's leg).
 */
export function legMediaOf(summary: { clientEdge?: unknown }): LegMedia | null {
  const edge = summary.clientEdge as
    | { metrics?: { inbound?: Record<string, unknown>; outbound?: Record<string, unknown> } }
    | null
    | undefined;
  const metrics = edge?.metrics;
  if (!metrics) return null;
  const codec = metrics.outbound?.codec_name ?? metrics.inbound?.codec_name;
  return {
    received: count(metrics.inbound?.packets_received),
    sent: count(metrics.outbound?.packets_sent),
    lostAtBrowser: count(metrics.outbound?.packets_lost),
    ...(typeof codec === 'string' && codec.length <= 20 ? { codec } : {}),
  };
}

/** Asks Voice Insights for a leg's summary through the `twilio` package. */
export function summaryFetcher(client: TwilioClient): (callSid: string) => Promise<SummaryAnswer> {
  return async (callSid) => {
    try {
      const summary = await client.insights.v1
        .calls(callSid)
        .summary()
        .fetch({ processingState: 'partial' });
      return legMediaOf(summary);
    } catch (err) {
      const status = (err as { status?: number }).status;
      return status === 401 || status === 403 ? 'refused' : null;
    }
  };
}

/**
 * Who each side of the row was, and the sid of their leg: the caller's own call when it came from a
 * browser, and the leg of whoever answered last (a transfer's last colleague).
 */
export function sidesOf(
  state: CallState,
  calls: CallLog,
): { side: RelayLeg['side']; identity: string; sid: string }[] {
  const parties = calls.partiesOf(state.callSid);
  const sides: { side: RelayLeg['side']; identity: string; sid: string }[] = [];
  const caller = parties.find((p) => p.sid === state.callSid);
  if (caller && state.user !== '') sides.push({ side: 'caller', ...caller });
  const callee = parties.filter((p) => p.sid !== state.callSid && p.identity === state.answeredBy);
  const last = callee.at(-1);
  if (last) sides.push({ side: 'callee', identity: last.identity, sid: last.sid });
  return sides;
}

/** Adds the relay's view to written rows, as the summaries come in. */
export function createRelayReader(deps: {
  calls: CallLog;
  fetch: (callSid: string) => Promise<SummaryAnswer>;
  amend: (state: CallState) => Promise<void>;
  log: (message: string) => void;
  delaysMs?: readonly number[];
}) {
  const delays = deps.delaysMs ?? SUMMARY_DELAYS_MS;
  let refused = false;
  return function follow(state: CallState): void {
    const sides = sidesOf(state, deps.calls);
    if (sides.length === 0 || refused) return;
    const attempt = (n: number): void => {
      const timer = setTimeout(() => {
        void Promise.all(sides.map((s) => deps.fetch(s.sid))).then(async (answers) => {
          if (answers.includes('refused')) {
            if (!refused)
              deps.log(
                'Voice Insights refused a Call Summary (Advanced Features not active?): history rows keep no media view',
              );
            refused = true;
            return;
          }
          const legs = sides.flatMap((s, i) => {
            const media = answers[i];
            return media && media !== 'refused'
              ? [{ side: s.side, identity: s.identity, ...media }]
              : [];
          });
          if (legs.length === sides.length || (n + 1 >= delays.length && legs.length > 0)) {
            state.relay = legs;
            await deps.amend(state);
            return;
          }
          if (n + 1 < delays.length) attempt(n + 1);
        });
      }, delays[n]);
      timer.unref();
    };
    attempt(0);
  };
}
