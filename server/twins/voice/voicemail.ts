/**
 * Voicemail: the greeting, a tone, then the caller's audio until they hang up or the limit, kept by
 * the voicemail store when the call ends.
 */
import { toneFrame } from './audio';
import { pcmToMulaw } from './codec';
import type { Call, VoiceState } from './model';
import type { Plan } from '../../../src/domain/routing/plan';
import { endCall } from './calls';
import { announcementAudio, answerCaller, note, stillRouting } from './routing';
import { planStep, RECORDING_STEP } from '../../../src/domain/routing/steps';

/** The tone before a voicemail message: half a second at 1 kHz. */
const VOICEMAIL_TONE = Buffer.concat(
  Array.from({ length: 25 }, (_, i) =>
    toneFrame({ frequencies: [1000], onMs: 500, offMs: 0, level: 0.3 }, i),
  ),
);

/** Voicemail: the greeting, a tone, then what the caller says until they hang up (or the limit). */
export async function takeMessage(
  vs: VoiceState,
  call: Call,
  plan: Extract<Plan, { kind: 'voicemail' }>,
): Promise<void> {
  const route = call.route!;
  note(vs, call, planStep(plan));
  answerCaller(vs, call);
  const leg = call.caller.leg!;
  const greeting = await announcementAudio(vs, call, plan.guidanceId);
  if (!stillRouting(call)) return;
  if (greeting) await leg.playOnce(greeting);
  if (!stillRouting(call)) return;
  await leg.playOnce(VOICEMAIL_TONE);
  if (!stillRouting(call) || route.recording) return;
  const chunks: Buffer[] = [];
  // Whatever codec the leg speaks, the message is kept as μ-law at 8 kHz (the store's format).
  const stop = leg.onAudio((pcm8k) => chunks.push(pcmToMulaw(pcm8k)));
  const timer = setTimeout(() => {
    endCall(vs, call, 'voicemail', 'The message reached the time limit.', { caller: 'hangup' });
  }, vs.voicemailMaxMs);
  timer.unref();
  route.recording = { groupId: plan.groupId, chunks, stop, timer };
  note(vs, call, RECORDING_STEP);
}

/** Stops a message being recorded and keeps it; null when nothing worth keeping was said. */
export function finishRecording(
  vs: VoiceState,
  call: Call,
): { id: string; seconds: number } | null {
  const route = call.route;
  const rec = route?.recording;
  if (!route || !rec) return route?.voicemail ?? null;
  route.recording = null;
  rec.stop();
  clearTimeout(rec.timer);
  if (!vs.options.voicemail) return null;
  try {
    route.voicemail = vs.options.voicemail.save(Buffer.concat(rec.chunks), {
      groupId: rec.groupId,
      callId: call.id,
      at: vs.now(),
    });
  } catch (err) {
    vs.log(`voice: keeping the voicemail of ${call.id} failed: ${String(err)}`);
  }
  return route.voicemail;
}
