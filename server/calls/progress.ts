/**
 * What Twilio reports as a call goes on: a voicemail recorded (its `<Record>` action and recording
 * status callback), each `<Dial>` leg answered or ended (the leg status callback), and the call's
 * end (the application's and numbers' status callback), which writes the call's one history row,
 * or leaves it to control.ts while a moved call goes on.
 */
import { answeredStep, type StepNote } from '../../src/domain/routing/steps';
import type { RequestContext, Router } from '../platform/http/router';
import { TWILIO_PATHS } from '../../src/contracts/api';
import type { CallRecord } from '../../src/contracts/records/call';
import { personOfClientAddress } from '../../src/contracts/voice-identity';
import { historyItem, type CallState } from './call-log';
import type { CallControl } from './control';
import { partyMessage } from './live-calls';
import { callSidOf, missing, sendNothing } from './fallback';
import { createRowAmender } from './row-amend';
import { readSignedForm } from '../twilio/signature';
import { Twiml } from './twiml-writer';
import type { TwilioWebhookDeps } from './webhook-deps';

const FINAL_STATUSES = ['completed', 'busy', 'failed', 'no-answer', 'canceled'];
const DIAL_STATUSES = ['completed', 'answered', 'busy', 'no-answer', 'failed', 'canceled'];
const clientIdentity = personOfClientAddress;

export interface CallProgressDeps extends Omit<TwilioWebhookDeps, 'control'> {
  control: CallControl | null;
  /** Answers a webhook with TwiML, or with `fallback`'s when the work fails (webhooks.ts). */
  answering: (
    work: (ctx: RequestContext, params: Record<string, string>) => Promise<string>,
    fallback?: (ctx: RequestContext, params: Record<string, string>) => Promise<string>,
  ) => (ctx: RequestContext) => Promise<void>;
  writeRow: (state: CallState, row: CallRecord) => Promise<void>;
  nameOf: (identity: string) => string;
  /** Routing steps: kept for the row and told to the caller. */
  told: (state: CallState, notes: readonly StepNote[]) => void;
}

export function registerCallProgress(router: Router, deps: CallProgressDeps): void {
  const { config, calls, data, now, control, answering, writeRow, nameOf, told } = deps;
  const amend = createRowAmender(deps);

  /** A recording left for `groupId`: kept on the call's row, written or still to be. */
  async function keepVoicemail(
    callSid: string,
    groupId: string,
    params: Record<string, string>,
  ): Promise<void> {
    const recordingSid = params.RecordingSid ?? '';
    const seconds = Number(params.RecordingDuration ?? '0');
    if (!/^RE[0-9a-fA-F]{32}$/.test(recordingSid) || !(seconds > 0)) return;
    const state = calls.get(callSid);
    if (!state || state.voicemail?.id === recordingSid) return;
    deps.voicemail.left(recordingSid, groupId);
    const voicemail = { id: recordingSid, seconds: Math.round(seconds) };
    state.voicemail = voicemail;
    await amend(state);
  }

  const thanks = (params: Record<string, string>): string => {
    const response = new Twiml();
    if (Number(params.RecordingDuration ?? '0') > 0) response.say({}, 'Thank you. Goodbye.');
    return response.hangup().toString();
  };

  router.on(
    'POST',
    TWILIO_PATHS.voicemail,
    answering(
      async (ctx, params) => {
        const callSid = callSidOf(params);
        await keepVoicemail(callSid, ctx.url.searchParams.get('group') ?? '', params);
        return thanks(params);
      },
      (_ctx, params) => Promise.resolve(thanks(params)),
    ),
  );

  router.on('POST', TWILIO_PATHS.recording, async (ctx) => {
    const params = await readSignedForm(ctx.req, config);
    const callSid = callSidOf(params);
    if (params.RecordingStatus === 'completed')
      await keepVoicemail(callSid, ctx.url.searchParams.get('group') ?? '', params);
    sendNothing(ctx.res);
  });

  /**
   * Whether a status callback is to be taken: not when an event fired after it was taken already
   * (it arrived late, or twice: `CallLog.inOrder`).
   */
  const inOrder = (path: string, params: Record<string, string>): boolean =>
    calls.inOrder(`${path} ${params.CallSid ?? ''}`, params.SequenceNumber);

  /**
   * Legs whose answer was taken and whose end has not come yet (each removed at its end, so only
   * calls under way are here).
   */
  const answers = new Set<string>();

  router.on('POST', TWILIO_PATHS.leg, async (ctx) => {
    const params = await readSignedForm(ctx.req, config);
    const legSid = callSidOf(params);
    const parentSid = callSidOf(params, 'ParentCallSid');
    const to = params.To ?? '';
    const status = params.CallStatus ?? '';
    const identity = clientIdentity(to);
    if (status === '') throw missing('CallStatus');
    if (!inOrder(TWILIO_PATHS.leg, params)) {
      sendNothing(ctx.res);
      return;
    }
    // The caller's SDK was sent `ringing` as this leg rang, or its answer: it knows its CallSid.
    if (status === 'ringing' || status === 'in-progress') deps.sdkKnows?.ready(parentSid);
    /**
     * The leg's answer: who took the call, on the row and for the controls. `late`: taken from the
     * leg's `completed` ("The call was answered and has ended normally",
     * https://www.twilio.com/docs/voice/api/call-resource#call-status-values) because its own
     * `in-progress` has not arrived (callbacks come in no set order, and one may come after the
     * end or be dropped as older): the row still says who answered and when, and nobody is put
     * on a call for a leg that is over.
     */
    const takeAnswer = (late: boolean): void => {
      answers.add(legSid);
      const state = calls.get(parentSid);
      if (state && state.answeredBy === null) {
        state.answeredBy = identity ?? to;
        const talked = late ? Number(params.CallDuration ?? '0') : 0;
        state.answeredAt = now() - (Number.isFinite(talked) ? Math.max(0, talked) * 1000 : 0);
        if (state.groupId !== null) told(state, [answeredStep(identity ? nameOf(identity) : to)]);
        // A browser caller's card names whoever took the call (a group's member, a forwarding
        // target); a caller from a phone has no Voice SDK to tell (webhooks.ts, `told`).
        if (state.user !== '' && !late)
          deps.tell?.(
            parentSid,
            partyMessage({ identity, name: identity !== null ? nameOf(identity) : to }),
          );
      }
      if (identity !== null && !late) {
        calls.legAnswered(identity, legSid);
        calls.party(legSid, control?.callOf(parentSid) ?? parentSid, identity);
      }
      // A `<Number>`'s phone as much as a `<Client>`'s colleague: the call is live either way, so it
      // can be held, parked and transferred (without it every control answered "This call has ended").
      control?.answered(parentSid, legSid, identity, to);
    };
    // An answer arriving after the leg's end is not taken: the leg is over.
    if (status === 'in-progress' && !calls.hasEnded(legSid)) takeAnswer(false);
    else if (FINAL_STATUSES.includes(status)) {
      if (status === 'completed' && !answers.has(legSid) && !calls.hasEnded(legSid))
        takeAnswer(true);
      answers.delete(legSid);
      calls.legEnded(legSid, identity);
      control?.ended(legSid);
    }
    sendNothing(ctx.res);
  });

  // The action of a ring-back's or a transfer's <Dial> (control.ts): over, or back to the sender.
  router.on(
    'POST',
    TWILIO_PATHS.after,
    answering(
      (_ctx, params) => {
        const callSid = callSidOf(params);
        const moved = control?.pendingFor(callSid);
        if (moved) return Promise.resolve(moved);
        const status = params.DialCallStatus ?? '';
        if (!DIAL_STATUSES.includes(status)) throw missing('DialCallStatus');
        return Promise.resolve(
          control ? control.afterRing(callSid, status) : new Twiml().hangup().toString(),
        );
      },
      () => Promise.resolve(new Twiml().hangup().toString()),
    ),
  );

  // An attended transfer's call to its target: answered, or over (control.ts, consult.ts).
  router.on('POST', TWILIO_PATHS.consult, async (ctx) => {
    const params = await readSignedForm(ctx.req, config);
    const callSid = callSidOf(params);
    const status = params.CallStatus ?? '';
    if (status === '') throw missing('CallStatus');
    if (inOrder(TWILIO_PATHS.consult, params))
      control?.consultProgress(ctx.url.searchParams.get('call') ?? '', callSid, status);
    sendNothing(ctx.res);
  });

  router.on('POST', TWILIO_PATHS.status, async (ctx) => {
    const params = await readSignedForm(ctx.req, config);
    const callSid = callSidOf(params);
    const status = params.CallStatus ?? '';
    if (status === '') throw missing('CallStatus');
    if (!FINAL_STATUSES.includes(status) || !inOrder(TWILIO_PATHS.status, params)) {
      sendNothing(ctx.res);
      return;
    }
    // The call's own leg: a colleague's when they placed it from their browser.
    calls.legEnded(callSid, clientIdentity(params.From ?? ''));
    // A leg of a call that goes on (moved by a hold, park or transfer), or a pick-up's leg: the
    // call's one row is written when its last leg ends (control.ts).
    if (control?.ended(callSid)) {
      sendNothing(ctx.res);
      return;
    }
    const state = calls.get(callSid) ?? (await unknownCall(callSid, params));
    if (state.written || state.writing) {
      // Twilio sent it again: the row is there already.
      sendNothing(ctx.res);
      return;
    }
    state.writing = true;
    const row = historyItem(state, now(), status);
    // Answered at once, the row written after: Twilio gives up on a webhook after 15 s (11205,
    // https://www.twilio.com/docs/api/errors/11205) and a Sync write with the client's retries may
    // take longer. A write that fails is tried again later (fallback.ts, createRowWriter).
    sendNothing(ctx.res);
    writeRow(state, row).catch((err: unknown) =>
      deps.log(`call ${callSid}: writing its history failed: ${String(err)}`),
    );
  });

  /**
   * A call over that this server did not see start (it restarted meanwhile, or another server
   * answered its webhooks): what the status callback says, and the group its number belongs to.
   */
  async function unknownCall(callSid: string, params: Record<string, string>): Promise<CallState> {
    const from = params.From ?? '';
    const to = params.To ?? '';
    const caller = clientIdentity(from);
    const group = caller === null ? await data.groupByNumber(to).catch(() => null) : null;
    const seconds = Number(params.CallDuration ?? '0');
    return calls.open(callSid, () => ({
      startedAt: now() - (Number.isFinite(seconds) ? seconds * 1000 : 0),
      direction: caller === null ? 'inbound' : 'outbound',
      from: caller ?? from,
      to,
      user: caller ?? '',
      groupId: group?.id ?? null,
      groupName: group?.group.name ?? '',
      reason: 'This server did not follow the call from its start: who answered is not known.',
      followed: false,
    }));
  }
}
