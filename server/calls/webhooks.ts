/**
 * Twilio's voice webhooks (all POST, form-encoded, signed; signature.ts), answered with TwiML from the
 * routing engine (twiml.ts) or 204:
 * - `/api/twilio/voice`: a call arrives. From outside (a phone number's Voice URL): the ring group with
 *   that number is routed. From a browser (the TwiML app's Voice URL, `From=client:<identity>`): `To`
 *   is a colleague (`<Dial><Client>`), a ring group's number or extension (routed like an outside
 *   call), or a number in international form (`<Dial><Number>` from the team's first number).
 * - `/api/twilio/voice/next?plan=…`: a `<Dial>` ended; `DialCallStatus` picks the branch of the plan
 *   the URL carries (busy: the declined branch; no-answer, failed: the no-answer one; completed: the
 *   call is over).
 * - `/api/twilio/voice/ring`: the ring a call control gave a live call (a blind transfer's, a
 *   ring-back's `<Dial><Client>`s), which the call update asks for by URL (control.ts).
 * - `/api/twilio/voicemail` (`<Record action>`) and `/api/twilio/recording` (its status callback):
 *   the message is kept on the call's history row.
 * - `/api/twilio/leg`: a `<Client>` or `<Number>` answered or ended (who took the call; who is busy).
 * - `/api/twilio/status`: the call is over (the number's and the TwiML app's status callback): one
 *   item is appended to `calls`.
 * A request with a missing or wrong signature gets 403 and changes nothing; a signed request with
 * fields missing gets 400. When Sync cannot be read, the caller hears an apology rather than
 * Twilio's application error.
 */
import { decide } from '../../src/domain/routing/engine';
import type { Plan } from '../../src/domain/routing/plan';
import { CALL_REASONS } from '../../src/domain/calls/reasons';
import {
  RECORDING_STEP,
  ringEndStep,
  situationStep,
  type StepNote,
} from '../../src/domain/routing/steps';
import { HttpError } from '../platform/http/errors';
import type { RequestContext, Router } from '../platform/http/router';
import { createTeamReader } from './team';
import { resolveDestination, TEST_PREFIX } from './destination';
import { historyItem, type CallState } from './call-log';
import { registerCallProgress } from './progress';
import type { TwilioWebhookDeps } from './webhook-deps';
import { createCallControl, type CallControl } from './control';
import {
  callSidOf,
  createRowWriter,
  createVoicemailFallback,
  missing,
  registerFallbackRoute,
  ROUTING_DEADLINE_MS,
  sendTwiml,
  withDeadline,
} from './fallback';
import { decodeBranches, PlanTokenError, type Branches } from './plan-token';
import { readSignedForm } from '../twilio/signature';
import { Twiml } from './twiml-writer';
import {
  dialNumber,
  ringClients,
  sayAndHangUp,
  writePlan,
  withReasons,
  writeRecord,
  type Reached,
  type TwimlContext,
} from './twiml';
import { TWILIO_PATHS } from '../../src/contracts/api';
import { normaliseNumber } from '../../src/contracts/records/group';
import {
  ATTEMPT_ID,
  CALL_PARAMETERS,
  PARK_PREFIX,
  PLACED_CALL_PARAMETERS,
} from '../../src/contracts/call-parameters';
import { personOfClientAddress } from '../../src/contracts/voice-identity';

const E164 = /^\+[1-9][0-9]{7,14}$/;
const DIAL_STATUSES = ['completed', 'answered', 'busy', 'no-answer', 'failed', 'canceled'];
export const APOLOGY = 'Sorry, we cannot take your call right now. Please try again later.';
/**
 * The person a `client:` address names: Twilio posts back the token's Voice identity
 * (src/contracts/voice-identity.ts), which maps back to their email, as everything else knows them.
 */
const clientIdentity = personOfClientAddress;

/**
 * The placing browser's own id for its call (call-parameters.ts), kept in the row so the card finds
 * it before the SDK knows the CallSid; anything not shaped as the browser makes it is not kept.
 */
const attemptOf = (params: Record<string, string>): string => {
  const given = params[PLACED_CALL_PARAMETERS.attempt] ?? '';
  return ATTEMPT_ID.test(given) ? given : '';
};

/** TwiML whose first verb rings people before the caller is answered (`answerOnBridge`). */
const RINGS_FIRST =
  /^(<\?xml[^>]*>)?<Response><Dial[^>]*answerOnBridge="true"[^>]*>(<Client|<Number)/;

export function registerTwilioWebhooks(
  router: Router,
  deps: TwilioWebhookDeps,
): CallControl | null {
  const { config, calls, data, now, log } = deps;

  const { team, nameOf } = createTeamReader(deps.team, now);

  /** Caller ID for calls to outside numbers from a browser: the group's number if it is ours. */
  const callerIdFor = (groupNumber: string | null): string =>
    groupNumber !== null && config.phoneNumbers.includes(groupNumber)
      ? groupNumber
      : config.phoneNumbers[0]!;

  async function twimlContext(
    fromBrowser: boolean,
    groupNumber: string | null,
  ): Promise<TwimlContext> {
    const groups = await data.groups();
    return {
      publicUrl: config.publicUrl,
      announcement: (id) => deps.media.announcement(id),
      groupName: (id) => groups.get(id)?.name || id,
      personName: nameOf,
      // A call from outside keeps its own caller ID when forwarded; a browser has none to keep.
      callerId: fromBrowser ? callerIdFor(groupNumber) : null,
      voicemailSeconds: deps.voicemailSeconds,
      log,
    };
  }

  /** What a ring tells the phones about the call: a colleague caller's name, a test. */
  const callerOf = (state: CallState): Pick<TwimlContext, 'test' | 'callerName'> => ({
    test: state.test,
    ...(state.user ? { callerName: nameOf(state.user) } : {}),
  });

  /**
   * Routing steps: kept for the row, and told to a caller on a browser. A caller from a phone has no
   * Voice SDK to tell: "A UserDefinedMessage subresource can only be created during an active call
   * associated with the Voice SDK" (https://www.twilio.com/docs/voice/api/userdefinedmessage-resource),
   * so Twilio would refuse each of them.
   */
  function told(state: CallState, notes: readonly StepNote[]): void {
    for (const n of notes) {
      if (state.routing.length < 50) state.routing.push({ ...n, at: now() });
      if (state.user !== '')
        deps.tell?.(state.callSid, { event: 'routing', kind: n.kind, text: n.text });
    }
  }

  /** Notes what the plan reached on the call's state. */
  function remember(state: CallState, reached: Reached): void {
    told(state, reached.steps);
    if (reached.ringSeconds !== null) state.ringSeconds = reached.ringSeconds;
    if (reached.forwardedTo !== null) state.forwardedTo = reached.forwardedTo;
    // Plans carried in an action URL leave out the rings' reasons: the last one given stays.
    if (reached.reason !== '') state.reason = reached.reason;
    if (reached.voicemail) state.groupId ??= reached.voicemail.groupId;
  }

  async function routeGroup(
    state: CallState,
    groupId: string,
    fromBrowser: boolean,
    groupNumber: string,
  ): Promise<string> {
    const prepared = await data.prepare(groupId);
    const decision = decide({
      groupId,
      at: now(),
      setupOf: prepared.setupOf,
      availabilityOf: prepared.availabilityOf,
      externalCalls: true,
      nameOf,
    });
    for (const cut of decision.cuts) log(`routing ${groupId}: ${cut}`);
    told(state, [situationStep(state.groupName || groupId, decision)]);
    const response = new Twiml();
    const reached = await writePlan(response, decision.plan, {
      ...(await twimlContext(fromBrowser, groupNumber)),
      ...callerOf(state),
    });
    remember(state, reached);
    return response.toString();
  }

  /**
   * Answers with TwiML within {@link ROUTING_DEADLINE_MS}; a failure or a late answer becomes
   * `fallback`'s (voicemail, by default).
   */
  const fallback = createVoicemailFallback(deps, told);
  const { toVoicemail, knownGroupOf } = fallback;
  registerFallbackRoute(router, deps, fallback);
  const writeRow = createRowWriter(deps);
  const control = deps.control
    ? createCallControl({
        client: deps.control.client,
        calls,
        rest: deps.rest,
        publicUrl: () => config.publicUrl,
        team,
        nameOf,
        data,
        tell: (callSid, content) => deps.tell?.(callSid, content),
        finish(state) {
          if (state.written || state.writing) return;
          state.writing = true;
          void writeRow(state, historyItem(state, now(), 'completed'));
        },
        parkTimeoutMs: deps.control.parkTimeoutMs,
        ringSeconds: deps.directRingSeconds,
        now,
        log,
      })
    : null;
  const UNREAD = 'The routing data could not be read in time.';

  const answering =
    (
      work: (ctx: RequestContext, params: Record<string, string>) => Promise<string>,
      fallback: (ctx: RequestContext, params: Record<string, string>) => Promise<string> = (
        _ctx,
        params,
      ) => {
        const callSid = params.CallSid ?? '';
        return toVoicemail(callSid, knownGroupOf(callSid, params.To ?? ''), UNREAD);
      },
    ) =>
    async (ctx: RequestContext): Promise<void> => {
      const params = await readSignedForm(ctx.req, config);
      // A browser's own call: what it is told waits until its SDK knows its CallSid (tell.ts).
      const fromBrowser =
        (params.From ?? '').startsWith('client:') && params.Direction === 'inbound';
      if (fromBrowser) deps.sdkKnows?.wait(params.CallSid ?? '');
      let xml: string;
      try {
        xml = await withDeadline(work(ctx, params), ROUTING_DEADLINE_MS);
      } catch (err) {
        if (err instanceof HttpError) throw err;
        log(
          `twilio webhook ${ctx.url.pathname} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
        );
        xml = await fallback(ctx, params).catch(() => sayAndHangUp(APOLOGY));
      }
      sendTwiml(ctx.res, xml);
      // Answered by this TwiML at once (anything but a <Dial answerOnBridge> ringing someone first):
      // the SDK has its CallSid with the answer. A ringing <Dial> tells it when its leg rings
      // (progress.ts).
      if (fromBrowser && !RINGS_FIRST.test(xml)) deps.sdkKnows?.ready(params.CallSid ?? '');
    };

  router.on(
    'POST',
    TWILIO_PATHS.voice,
    answering(async (_ctx, params) => {
      const callSid = callSidOf(params);
      const from = params.From ?? '';
      const to = params.To ?? '';
      const caller = clientIdentity(from);
      if (caller !== null) return outgoing(callSid, caller, to, attemptOf(params));
      if (to === '') throw missing('To');
      const found = await data.groupByNumber(to);
      const state = calls.open(callSid, () => ({
        startedAt: now(),
        direction: 'inbound',
        from,
        to,
        user: '',
        groupId: found?.id ?? null,
        groupName: found?.group.name ?? '',
      }));
      if (!found) {
        state.reason = 'No ring group has this number.';
        log(`call ${callSid} to ${to}: no ring group has this number`);
        return sayAndHangUp('Sorry, this number is not in service.');
      }
      return routeGroup(state, found.id, false, normaliseNumber(found.group.number));
    }),
  );

  /** Refused before it is answered (`<Reject>`): the card and the call's row say why. */
  const refused = (state: CallState, reason: string): string => {
    state.reason = reason;
    return new Twiml().reject({ reason: 'rejected' }).toString();
  };

  /** A call placed from a browser through the TwiML app. */
  async function outgoing(
    callSid: string,
    caller: string,
    rawTo: string,
    attempt: string,
  ): Promise<string> {
    // A caller not on the team's copy may have signed in within the second: read it again then.
    let people = team();
    if (!people.some((u) => u.identity === caller)) people = team(true);
    const me = people.find((u) => u.identity === caller);
    const target = rawTo.trim();
    const state = calls.open(callSid, () => ({
      startedAt: now(),
      direction: 'outbound',
      from: caller,
      to: target,
      user: caller,
      attempt,
    }));
    if (!me) {
      state.reason = 'The caller is no longer on the team.';
      return sayAndHangUp('You are no longer on this team, so calls cannot be placed.');
    }
    if (target.startsWith(PARK_PREFIX) && control) {
      // A pick-up: the first picker joins the parked call; anyone else is told why not.
      const picked = control.pickUp(callSid, caller, target.slice(PARK_PREFIX.length));
      if ('refused' in picked) {
        return refused(state, picked.refused);
      }
      calls.legAnswered(caller, callSid);
      return picked.twiml;
    }
    // The caller is on a call until Twilio reports it over (status callback).
    calls.legAnswered(caller, callSid);
    calls.party(callSid, callSid, caller);
    const response = new Twiml();
    if (target.startsWith(TEST_PREFIX)) {
      // Test this group: an admin's call routed as an outside caller's would be (docs/voice.md).
      if (me.role !== 'admin') {
        state.reason = 'Only admins can test a ring group.';
        return sayAndHangUp(state.reason);
      }
      const id = target.slice(TEST_PREFIX.length);
      // A group saved a moment ago (Test this group on its new page) is read afresh.
      const group = await data.groupById(id);
      if (!group) {
        state.reason = 'That ring group no longer exists.';
        return sayAndHangUp(state.reason);
      }
      state.groupId = id;
      state.groupName = group.name;
      state.test = true;
      return routeGroup(state, id, true, normaliseNumber(group.number));
    }
    let dest = resolveDestination(target, people);
    if (dest.kind === 'unknown') dest = resolveDestination(target, team(true));
    if (dest.kind === 'person') {
      state.to = dest.identity;
      state.callee = dest.identity;
      if (dest.identity === caller) return refused(state, CALL_REASONS.yourself);
      const can = await data.availability(dest.identity);
      if (can === 'offline') return refused(state, CALL_REASONS.offline(dest.name));
      if (can === 'doNotDisturb' || can === 'onCall') {
        // Refused as busy (https://www.twilio.com/docs/voice/twiml/reject: the call ends `busy`), as a
        // transfer to them is (control.ts); do not disturb is their wish (the row's outcome says so).
        const dnd = can === 'doNotDisturb';
        state.reason = dnd ? CALL_REASONS.doNotDisturb(dest.name) : CALL_REASONS.busy(dest.name);
        state.declined = dnd;
        state.doNotDisturb = dnd;
        response.reject({ reason: 'busy' });
        return response.toString();
      }
      ringClients(
        response,
        await twimlContext(true, null),
        { groupId: null, identities: [dest.identity], seconds: deps.directRingSeconds },
        { noAnswer: null, busy: null },
        { [CALL_PARAMETERS.callerName]: me.name },
      );
      return response.toString();
    }
    const number = normaliseNumber(target.replace(/^client:/i, ''));
    const group = number === '' ? null : await data.groupByNumber(number);
    if (group) {
      state.groupId = group.id;
      state.groupName = group.group.name;
      return routeGroup(state, group.id, true, number);
    }
    // No number of its own (the embedded backend's account): no phone network; refused below.
    const phoneNetwork = config.phoneNumbers.length > 0;
    if (E164.test(number) && phoneNetwork) {
      state.to = number;
      dialNumber(
        response,
        await twimlContext(true, null),
        { groupId: null, number, seconds: 60 },
        { noAnswer: null, busy: null },
      );
      return response.toString();
    }
    const reason =
      phoneNetwork && /^[0-9 ().-]{6,}$/.test(target)
        ? 'Dial numbers in international form: a plus, the country code, then the number.'
        : dest.kind === 'unknown'
          ? dest.reason
          : `Nobody here is called ${JSON.stringify(target.slice(0, 80))}.`;
    return refused(state, reason);
  }

  /** The plan carried in a URL's `plan` (an action's, a continuation's); 400 when it is not ours. */
  function planOf(ctx: RequestContext): Branches {
    try {
      return decodeBranches(ctx.url.searchParams.get('plan') ?? '');
    } catch (err) {
      if (err instanceof PlanTokenError)
        throw new HttpError(400, 'bad_request', `The plan in the URL is not valid: ${err.message}`);
      throw err;
    }
  }

  /** The call goes on with `plan` (a ring's branch, or what follows an announcement). */
  async function carryOn(
    state: CallState | undefined,
    plan: Plan | null,
    params: Record<string, string>,
  ): Promise<string> {
    const response = new Twiml();
    const fromBrowser = clientIdentity(params.From ?? '') !== null;
    const group = plan
      ? (await data.groups()).get(plan.kind === 'forward' ? plan.rule.groupId : plan.groupId)
      : undefined;
    const reached = await writePlan(response, plan, {
      ...(await twimlContext(fromBrowser, group ? normaliseNumber(group.number) : null)),
      ...(state ? callerOf(state) : {}),
    });
    if (state) remember(state, reached);
    return response.toString();
  }

  // What follows an announcement, asked for once it has played (twiml.ts): the rest of the plan,
  // or a voicemail's recording (`record=<groupId>`), each step told as it starts.
  router.on(
    'POST',
    TWILIO_PATHS.continue,
    answering(async (ctx, params) => {
      const state = calls.get(callSidOf(params));
      const record = ctx.url.searchParams.get('record');
      if (record === null) {
        const plan = planOf(ctx).noAnswer;
        const why = ctx.url.searchParams.get('why');
        return carryOn(state, plan && withReasons(plan, why), params);
      }
      if (state) told(state, [RECORDING_STEP]);
      const response = new Twiml();
      // Nothing read: a caller whose data could not be read is recording by now (fallback.ts).
      writeRecord(response, record, {
        publicUrl: config.publicUrl,
        voicemailSeconds: deps.voicemailSeconds,
      });
      return response.toString();
    }),
  );

  router.on(
    'POST',
    TWILIO_PATHS.next,
    answering(async (ctx, params) => {
      const callSid = callSidOf(params);
      // Its child was moved (a hold, a park, a transfer): the parent goes where control.ts says.
      const moved = control?.pendingFor(callSid);
      if (moved) return moved;
      const status = params.DialCallStatus ?? '';
      if (!DIAL_STATUSES.includes(status)) throw missing('DialCallStatus');
      const branches = planOf(ctx);
      const state = calls.get(callSid);
      const response = new Twiml();
      if (status === 'completed' || status === 'answered' || status === 'canceled') {
        // Talked and hung up (or the caller left while it rang): nothing more to do.
        if (state && state.answeredAt === null && status !== 'canceled') {
          const talked = Number(params.DialCallDuration);
          if (Number.isFinite(talked) && talked > 0) state.answeredAt = now() - talked * 1000;
        }
        response.hangup();
        return response.toString();
      }
      if (state) {
        state.rangOut = true;
        if (status === 'busy') state.declined = true;
        if (state.groupId !== null && state.callee === null)
          told(state, [ringEndStep(status === 'busy', state.ringSeconds ?? 0)]);
        // A colleague called directly: the caller reads why in the row (the SDK gets no sentence).
        if (state.callee === null && state.groupId === null && status === 'failed')
          state.reason = CALL_REASONS.numberFailed(state.to);
        if (state.callee !== null && state.groupId === null)
          state.reason =
            status === 'busy'
              ? CALL_REASONS.declined(nameOf(state.callee))
              : CALL_REASONS.noAnswer(nameOf(state.callee));
      }
      return carryOn(state, status === 'busy' ? branches.busy : branches.noAnswer, params);
    }),
  );

  // The ring a control gave a live call (a blind transfer, a ring-back: control.ts), asked for by
  // the call update's `Url`; a leg with none (this server restarted since) hangs up, as its
  // `<Dial>` action would.
  router.on(
    'POST',
    TWILIO_PATHS.ring,
    answering(
      (_ctx, params) =>
        Promise.resolve(control?.ringFor(callSidOf(params)) ?? new Twiml().hangup().toString()),
      () => Promise.resolve(new Twiml().hangup().toString()),
    ),
  );

  registerCallProgress(router, {
    ...deps,
    control,
    answering,
    writeRow,
    nameOf,
    told,
  });
  return control;
}
