/**
 * A call's life on the twin as a TwiML application runs it: its TwiML run from the start (the Voice
 * URL, or a REST redirect's new TwiML), each redirect stopping the run before it, until the call ends.
 */
import type { VoiceState } from '../model';
import { send } from '../wire';
import { endAppCall, sdkSid, untilEnded } from './call';
import { TwinCallLeg } from './leg';
import { runCall, type Start } from './run';
import type { FinalStatus } from './status';
import type { WebhookTarget } from './webhook';
import { type AppCall } from '../model';

/**
 * A call's life on the twin: its TwiML is run from `start` (then from each redirect's new start,
 * startRun) until the call ends; then it is forgotten, its media leg closed and its end reported.
 */
export async function runAppCall(
  vs: VoiceState,
  call: AppCall,
  start: Start,
  fallback: WebhookTarget | null,
  ended: (status: FinalStatus, seconds: number) => void,
): Promise<void> {
  const mode = vs.app!;
  mode.calls.set(call.sid, call);
  mode.calls.set(call.tempSid, call);
  startRun(vs, call, start, fallback);
  await untilEnded(call);
  mode.calls.delete(call.sid);
  mode.calls.delete(call.tempSid);
  void call.leg?.close();
  const final: FinalStatus =
    call.endStatus ??
    (call.answered ? 'completed' : call.hungUpByCaller ? 'canceled' : 'completed');
  ended(final, call.answeredAt === null ? 0 : (vs.now() - call.answeredAt) / 1000);
}

/**
 * Runs `start`'s TwiML on the call, stopping the run before it (a redirect: the verb running ends
 * at once, a `<Dial>` asks its action but its answer is not run). The call hangs up when the TwiML
 * runs out, unless another run has taken over.
 */
export function startRun(
  vs: VoiceState,
  call: AppCall,
  start: Start,
  fallback: WebhookTarget | null = null,
): void {
  const mode = vs.app!;
  call.run?.stop();
  const leg = new TwinCallLeg(vs, call);
  call.run = leg;
  runCall(leg, start, {
    webhooks: mode.webhooks,
    callParams: () => ({ ...call.fields }),
    fallback,
    log: (m) => vs.log(`voice twin ${call.sid}: ${m}`),
  }).then(
    () => leg.hangUp(),
    (err: unknown) => {
      vs.log(
        `voice twin: running ${call.sid} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
      );
      if (leg.ended) return;
      send(vs, call.conn, 'hangup', {
        callsid: sdkSid(call),
        error: { code: 31000, message: 'The call failed.' },
      });
      endAppCall(call);
    },
  );
}
