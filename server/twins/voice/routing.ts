/**
 * Calls to ring groups: the routing engine's plan carried out step by step (announcements, rings,
 * forwarding, voicemail), each decision noted and told to the caller (Test this group lists them).
 */
import { CALL_PARAMETERS } from '../../../src/contracts/call-parameters';
import { TONES } from './audio';
import { answerLeg, offerLeg, type MediaLeg } from './media';
import { CODE_TEXT, other, type Call, type Conn, type Destination, type VoiceState } from './model';
import type { ClientMessage } from './protocol';
import type { RoutingStep } from '../../../src/contracts/records/call';
import { planStep, situationStep, type StepNote } from '../../../src/domain/routing/steps';
import type { Decision, Plan } from '../../../src/domain/routing/plan';
import { endCall, mediaFailed, nameOf, newCall, sideNamed } from './calls';
import { noteProgress } from './history';
import { startRing } from './ringing';
import { failBeforeRinging, send, tell } from './signalling';
import { takeMessage } from './voicemail';

/** A call to a ring group: the caller's audio is set up, then the engine's plan is carried out. */
export async function placeGroupCall(
  vs: VoiceState,
  conn: Conn,
  msg: Extract<ClientMessage, { type: 'invite' }>,
  to: string,
  dest: Extract<Destination, { kind: 'group' }>,
  startedAt: number,
): Promise<void> {
  if (!vs.options.route) {
    failBeforeRinging(
      vs,
      conn,
      msg.callsid,
      CODE_TEXT.notFound,
      'Ring groups cannot take calls here.',
    );
    return;
  }
  const call = newCall(vs, conn, msg.callsid, to, null, startedAt);
  call.route = {
    groupId: dest.groupId,
    groupName: dest.name,
    test: dest.test,
    steps: [],
    ringing: null,
    recording: null,
    voicemail: null,
    holdAudio: null,
  };
  noteProgress(vs, call);
  // Loaded while the call rings, for when it is held, parked or transferred.
  vs.options.holdAnnouncement?.(dest.groupId).then(
    (audio) => {
      if (!call.route || !audio) return;
      call.route.holdAudio = audio;
      // Held or parked before it was ready: the waiting side hears it from now on.
      const waiting = call.park ? other(call.park.side) : call.heldBy ? other(call.heldBy) : null;
      if (waiting && call.state !== 'ended') sideNamed(call, waiting).leg?.play(audio);
    },
    (err: unknown) => vs.log(`voice: the hold announcement of ${dest.name}: ${String(err)}`),
  );
  let leg: MediaLeg;
  try {
    leg = await answerLeg(msg.sdp, vs.options.media);
  } catch (err) {
    mediaFailed(vs, call, err);
    return;
  }
  if (call.state === 'ended') {
    void leg.close();
    return;
  }
  call.caller.leg = leg;
  send(vs, conn, 'ringing', { callsid: call.id, sdp: leg.localSdp });
  call.caller.knowsSid = true;
  call.state = 'ringing';
  let decision: Decision;
  try {
    decision = vs.options.route(dest.groupId, vs.now());
  } catch (err) {
    vs.log(`voice: routing ${call.id} failed: ${String(err)}`);
    endCall(vs, call, 'failed', 'The call could not be routed.', {
      caller: { code: 31000, message: 'The call could not be routed. Try again.' },
    });
    return;
  }
  for (const cut of decision.cuts) vs.log(`voice: routing ${call.id} to ${dest.name}: ${cut}`);
  note(vs, call, situationStep(dest.name, decision));
  await runPlan(vs, call, decision.plan);
}

/** Notes a routing decision and tells the caller (Test this group shows them as they come). */
/** Tells the caller of a routing step (src/domain/routing/steps.ts) and keeps it for the row. */
export function note(vs: VoiceState, call: Call, n: StepNote | null): void {
  if (n) step(vs, call, n.kind, n.text);
}

export function step(vs: VoiceState, call: Call, kind: RoutingStep['kind'], text: string): void {
  if (!call.route) return;
  call.route.steps.push({ kind, text, at: vs.now() });
  noteProgress(vs, call);
  tell(vs, call.caller, { event: 'routing', kind, text });
}

/** The caller's SDK is answered: something plays to them (an announcement, voicemail). */
export function answerCaller(vs: VoiceState, call: Call): void {
  if (call.callerAnswered) return;
  call.callerAnswered = true;
  send(vs, call.caller.conn, 'answer', {
    callsid: call.caller.sid,
    sdp: call.caller.leg!.localSdp,
    reconnect: call.caller.token,
  });
}

/** An announcement's audio, or null (said as a step) when it cannot be played. */
export async function announcementAudio(
  vs: VoiceState,
  call: Call,
  guidanceId: string | null,
): Promise<Buffer | null> {
  if (!vs.options.announcement) return null;
  try {
    return await vs.options.announcement(guidanceId);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    vs.log(`voice: announcement ${guidanceId ?? '(voicemail)'} for ${call.id}: ${why}`);
    step(vs, call, 'problem', `The announcement could not be played: ${why}.`);
    return null;
  }
}

/** What a waiting caller hears: their group's on-hold announcement, else the built-in music. */
export const waitingSound = (vs: VoiceState, call: Call): Buffer =>
  call.route?.holdAudio ?? vs.music;

export const stillRouting = (call: Call): boolean =>
  call.state === 'ringing' && call.route !== null && call.caller.leg !== null;

/** Carries out one node of the engine's plan, and what follows it. */
export async function runPlan(vs: VoiceState, call: Call, plan: Plan): Promise<void> {
  if (!stillRouting(call)) return;
  if (plan.kind === 'announce') {
    note(vs, call, planStep(plan));
    answerCaller(vs, call);
    const audio = await announcementAudio(vs, call, plan.guidanceId);
    if (!stillRouting(call)) return;
    if (audio) await call.caller.leg!.playOnce(audio);
    await runPlan(vs, call, plan.then);
    return;
  }
  if (plan.kind === 'forward') {
    note(vs, call, planStep(plan));
    await runPlan(vs, call, plan.then);
    return;
  }
  if (plan.kind === 'ring') {
    ringMembers(vs, call, plan);
    return;
  }
  if (plan.kind === 'dial') {
    // Not planned here (no phone provider): the engine sends such forwarding to voicemail.
    await runPlan(vs, call, plan.onNoAnswer);
    return;
  }
  await takeMessage(vs, call, plan);
}

function ringMembers(vs: VoiceState, call: Call, plan: Extract<Plan, { kind: 'ring' }>): void {
  note(vs, call, planStep(plan));
  call.caller.leg!.play(TONES.ringback);
  offerLeg(vs.options.media).then(
    (leg) => {
      if (!stillRouting(call)) {
        void leg.close();
        return;
      }
      call.route!.ringing = plan;
      const started = startRing(
        vs,
        call,
        'callee',
        'call',
        plan.identities,
        plan.identities.length === 1 ? nameOf(vs, plan.identities[0]!) : call.route!.groupName,
        leg,
        call.from,
        {
          timeoutMs: plan.seconds * 1000,
          params: {
            [CALL_PARAMETERS.group]: call.route!.groupName,
            [CALL_PARAMETERS.groupId]: call.route!.groupId,
            ...(call.route!.test ? { [CALL_PARAMETERS.test]: '1' } : {}),
          },
        },
      );
      if (!started) {
        call.route!.ringing = null;
        step(vs, call, 'noAnswer', 'Nobody could be rung (gone offline).');
        void runPlan(vs, call, plan.onNoAnswer);
      }
    },
    (err: unknown) => {
      vs.log(`voice: ringing for ${call.id} failed: ${String(err)}`);
      step(vs, call, 'problem', 'The phones could not be rung.');
      void runPlan(vs, call, plan.onNoAnswer);
    },
  );
}
