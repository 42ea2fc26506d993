/**
 * A routing plan (src/domain/routing/engine.ts) written as TwiML (twiml-writer.ts, which writes what
 * the `twilio` package's VoiceResponse does, faster). The plan is walked from its start until a step that waits for the caller or a
 * callee:
 * - announce: `<Play>` of the announcement as this server renders it (what the admin previewed), or
 *   `<Say>` of its text when the speech engine cannot render it now;
 * - forward: nothing to say; the plan goes on with where the rule sends the call;
 * - ring: one `<Dial>` with a `<Client>` per person (several = all at once; in order is a chain of
 *   single rings); its `action` URL carries the rest of the plan (plan-token.ts), and the
 *   branch Twilio reports (`DialCallStatus`) picks how it goes on. Twilio takes at most ten
 *   `<Client>` nouns in one `<Dial>`, so a ring of more people rings in batches of ten, one after
 *   another ({@link ringBatches}); each `<Client>` names the person by their Voice identity
 *   (src/contracts/voice-identity.ts), never their email;
 * - dial: `<Dial><Number>` to an outside number, going on with the no-answer branch if it does not
 *   answer;
 * - voicemail: the greeting (the group's announcement, or a built-in sentence), then `<Record>`.
 * Each `<Client>` and `<Number>` reports its answer and its end (statusCallback), so the history
 * knows who took the call and routing knows who is on one.
 */
import { TWILIO_PATHS } from '../../src/contracts/api';
import { planStep, type StepNote } from '../../src/domain/routing/steps';
import { CALL_PARAMETERS } from '../../src/contracts/call-parameters';
import { voiceIdentityOf } from '../../src/contracts/voice-identity';
import { encodeBranches, type Branches } from './plan-token';
import { callerLanguage } from '../guidance/languages';
import { Twiml } from './twiml-writer';
import type { Plan } from '../../src/domain/routing/plan';

/** How Twilio speaks a text: a `<Say language>` and a voice that speaks it. */
export interface SayVoice {
  language: string;
  voice: string;
}

/** How an announcement reaches the caller: a recording to play, or text for Twilio to speak. */
export type Spoken = { play: string } | { say: string; voice: SayVoice | null };

export interface TwimlContext {
  /** The https origin Twilio calls (action and callback URLs are absolute). */
  publicUrl: string;
  /** An announcement (`guidance` id) as the caller hears it; null plays nothing (it is gone). */
  announcement(guidanceId: string): Promise<Spoken | null>;
  groupName(groupId: string): string;
  /** A person's name from their identity, for the steps of a plan carried on without its reasons. */
  personName(identity: string): string;
  /** Caller ID of `<Dial><Number>`; null keeps the caller's own (a call from outside). */
  callerId: string | null;
  /** The longest voicemail message, in seconds (SWITCHBOARD_VOICEMAIL_SECONDS). */
  voicemailSeconds: number;
  /** Told when the plan is too long for an action URL (the call goes to voicemail instead). */
  log(message: string): void;
  /** An admin's Test this group call: its members' phones say so. */
  test?: boolean;
  /** The caller's name when a colleague calls (their phones show it, as on a direct call). */
  callerName?: string;
}

/** What the walk reached, for the call's history. */
export interface Reached {
  /** The last forwarding rule's target, as text, or null. */
  forwardedTo: string | null;
  /** Set when the walk ended in voicemail. */
  voicemail: { groupId: string; reason: string } | null;
  /** Why the walk stopped where it did ("Ringing Alice and Bob at once."), when the plan says. */
  reason: string;
  /** The routing steps the walk reached, in order, as the caller is told them (steps.ts). */
  steps: StepNote[];
  /** The seconds the walk's last ring rings, when it ended in one. */
  ringSeconds: number | null;
}

/**
 * What Twilio adds to every `<Dial timeout>`: "For some call flows, we will add a 5-second buffer to
 * the timeout value you provide. For this reason, a timeout value of 10 seconds could result in an
 * actual timeout closer to 15 seconds" (https://www.twilio.com/docs/voice/twiml/dial#timeout, and the
 * same words for the Calls API's `Timeout`). Subtracted, so a turn rings as long as the admin set.
 */
export const TWILIO_DIAL_BUFFER_SECONDS = 5;

/**
 * Twilio's `timeout` for a `<Dial>` that should ring `seconds`: the buffer subtracted, within the
 * 5 to 600 seconds Twilio takes. A ring time under 10 s therefore rings 10 s (the form allows 5);
 * every other rings as set.
 */
export function dialSeconds(seconds: number): number {
  const wanted = Math.round(Number.isFinite(seconds) ? seconds : 20);
  return Math.min(600, Math.max(5, wanted - TWILIO_DIAL_BUFFER_SECONDS));
}

/**
 * The most `<Client>` nouns one `<Dial>` may hold: "You can use up to ten `<Client>` nouns within a
 * `<Dial>` verb to simultaneously attempt a connection with many clients at once"
 * (https://www.twilio.com/docs/voice/twiml/client).
 */
export const MAX_CLIENTS_PER_DIAL = 10;

export const BUILT_IN_GREETING =
  'Nobody can take your call right now. Please leave a message after the tone, then hang up or press the hash key.';

const url = (
  ctx: Pick<TwimlContext, 'publicUrl'>,
  path: string,
  query: Record<string, string> = {},
): string => {
  const q = new URLSearchParams(query).toString();
  return `${ctx.publicUrl}${path}${q ? `?${q}` : ''}`;
};

/** The `<Dial action>` URL holding `branches`; too long a plan goes on to the group's voicemail. */
function nextUrl(ctx: TwimlContext, groupId: string, branches: Branches): string {
  let token = encodeBranches(branches);
  if (token === null) {
    ctx.log(`routing plan of ${groupId} too long for an action URL: sending the call to voicemail`);
    const voicemail: Plan = {
      kind: 'voicemail',
      groupId,
      guidanceId: null,
      reason: 'The routing plan was too long to carry on.',
    };
    token = encodeBranches({ noAnswer: voicemail, busy: voicemail })!;
  }
  return url(ctx, TWILIO_PATHS.next, { plan: token });
}

// `ringing` too: a browser caller's SDK knows its CallSid once a leg rings (tell.ts).
const callbacks = (ctx: TwimlContext) => ({
  statusCallback: url(ctx, TWILIO_PATHS.leg),
  statusCallbackEvent: ['ringing', 'answered', 'completed'],
});

export function speak(response: Twiml, spoken: Spoken | null): void {
  if (spoken === null) return;
  if ('play' in spoken) response.play({}, spoken.play);
  else
    response.say(
      spoken.voice ? { language: spoken.voice.language, voice: spoken.voice.voice } : {},
      spoken.say,
    );
}

/** Rings `identities` (a `<Client>` each) for `seconds`, going on with `branches`. */
export function ringClients(
  response: Twiml,
  ctx: TwimlContext,
  ring: { groupId: string | null; identities: readonly string[]; seconds: number },
  branches: Branches,
  parameters: Record<string, string> = {},
): void {
  const attrs = callbacks(ctx);
  response.dial(
    {
      timeout: dialSeconds(ring.seconds),
      answerOnBridge: true,
      action: nextUrl(ctx, ring.groupId ?? '', branches),
    },
    ring.identities.map((person) => ({ client: voiceIdentityOf(person), attrs, parameters })),
  );
}

/**
 * The people of one ring in the batches it rings in, in order: at most {@link MAX_CLIENTS_PER_DIAL}
 * each (one `<Dial>` each). A routed call's ring ({@link ringBatches}) and a blind transfer's turns
 * (control.ts) ring so.
 */
export function clientBatches<T>(people: readonly T[]): T[][] {
  const batches: T[][] = [];
  for (let i = 0; i < people.length; i += MAX_CLIENTS_PER_DIAL)
    batches.push(people.slice(i, i + MAX_CLIENTS_PER_DIAL));
  return batches;
}

/**
 * A ring of more people than one `<Dial>` may hold, as rings of at most ten, one after another: the
 * first batch rings for the ring time; if nobody answers (or all decline) the next batch rings, and
 * so on; after the last, the ring's own branches. The alternative, calls placed through the REST API
 * into a conference, would ring everyone at once, but needs per-call state on one server (the
 * legs to cancel when one answers, the conference to end), a REST request per person inside the
 * webhook's 15 s, and Sync's and the Calls API's rate limits; batches keep the plan in the action
 * URL, so any server continues any call and a restart loses none (plan-token.ts).
 */
export function ringBatches(
  ring: Extract<Plan, { kind: 'ring' }>,
): Extract<Plan, { kind: 'ring' }> {
  if (ring.identities.length <= MAX_CLIENTS_PER_DIAL) return ring;
  const batches = clientBatches(ring.identities);
  let next: Extract<Plan, { kind: 'ring' }> | null = null;
  for (let i = batches.length - 1; i >= 0; i--) {
    const onNoAnswer: Plan | null = next ?? ring.onNoAnswer;
    const onBusy: Plan | null = next ?? ring.onBusy;
    // No reason: each batch is told as the people it rings (steps.ts), not as the whole ring.
    next = { ...ring, identities: batches[i]!, reason: '', onNoAnswer, onBusy };
  }
  return next!;
}

/** Dials an outside number for `seconds`, going on with `branches`. */
export function dialNumber(
  response: Twiml,
  ctx: TwimlContext,
  dial: { groupId: string | null; number: string; seconds: number },
  branches: Branches,
): void {
  response.dial(
    {
      timeout: dialSeconds(dial.seconds),
      answerOnBridge: true,
      action: nextUrl(ctx, dial.groupId ?? '', branches),
      callerId: ctx.callerId ?? undefined,
    },
    [{ number: dial.number, attrs: callbacks(ctx) }],
  );
}

/** Writes `plan` from its start into `response`; a null plan hangs up. */
export async function writePlan(
  response: Twiml,
  plan: Plan | null,
  ctx: TwimlContext,
): Promise<Reached> {
  const reached: Reached = {
    forwardedTo: null,
    voicemail: null,
    reason: '',
    steps: [],
    ringSeconds: null,
  };
  let p: Plan | null = plan;
  while (p) {
    // A ring of more than ten people is told and written as its first batch (the rest follow it).
    if (p.kind === 'ring') p = ringBatches(p);
    const told = planStep(p, {
      person: (id) => ctx.personName(id),
      group: (id) => ctx.groupName(id),
    });
    if (told) reached.steps.push(told);
    switch (p.kind) {
      case 'announce': {
        speak(response, await ctx.announcement(p.guidanceId));
        // What follows is asked for once the announcement has played, so the caller is told each
        // step as it happens (the steps of one webhook reach the browser together).
        const rest = p.then === null ? null : continueUrl(ctx, p.then);
        if (rest !== null) {
          response.redirect({}, rest);
          return reached;
        }
        p = p.then;
        break;
      }
      case 'forward':
        reached.forwardedTo =
          p.target.kind === 'number'
            ? p.target.number
            : p.target.kind === 'user'
              ? p.target.identity
              : p.target.kind === 'group'
                ? ctx.groupName(p.target.groupId)
                : 'voicemail';
        p = p.then;
        break;
      case 'ring': {
        reached.reason = told?.text ?? p.reason;
        reached.ringSeconds = p.seconds;
        ringClients(
          response,
          ctx,
          p,
          { noAnswer: p.onNoAnswer, busy: p.onBusy },
          {
            [CALL_PARAMETERS.group]: ctx.groupName(p.groupId),
            [CALL_PARAMETERS.groupId]: p.groupId,
            ...(ctx.test ? { [CALL_PARAMETERS.test]: '1' } : {}),
            ...(ctx.callerName ? { [CALL_PARAMETERS.callerName]: ctx.callerName } : {}),
          },
        );
        return reached;
      }
      case 'dial':
        dialNumber(response, ctx, p, { noAnswer: p.onNoAnswer, busy: p.onNoAnswer });
        return reached;
      case 'voicemail':
        reached.voicemail = { groupId: p.groupId, reason: p.reason };
        reached.reason = p.reason;
        speak(
          response,
          p.guidanceId === null
            ? { say: BUILT_IN_GREETING, voice: null }
            : ((await ctx.announcement(p.guidanceId)) ?? {
                say: BUILT_IN_GREETING,
                voice: null,
              }),
        );
        // The recording starts in a webhook of its own, told as it starts.
        response.redirect({}, url(ctx, TWILIO_PATHS.continue, { record: p.groupId }));
        return reached;
    }
  }
  response.hangup();
  return reached;
}

/** The URL that carries on with `plan`, or null when it is too long for one (then written inline). */
function continueUrl(ctx: TwimlContext, plan: Plan): string | null {
  const token = encodeBranches({ noAnswer: plan, busy: plan });
  if (token === null) return null;
  // A plan token leaves the reasons out; the ones told next ride along (the URL is signed).
  const why = JSON.stringify(walk(plan).map((p) => ('reason' in p ? p.reason : '')));
  const href = url(ctx, TWILIO_PATHS.continue, { plan: token, why });
  return href.length > 3000 ? null : href;
}

/** The nodes a continuation tells before it waits again: up to its ring, dial or voicemail. */
function walk(plan: Plan): Plan[] {
  const nodes: Plan[] = [];
  for (let p: Plan | null = plan; p && nodes.length < 20;) {
    nodes.push(p);
    p = p.kind === 'announce' || p.kind === 'forward' ? p.then : null;
  }
  return nodes;
}

/** Puts the reasons a continuation carried (`why`) back into its plan's nodes. */
export function withReasons(plan: Plan, why: string | null): Plan {
  let reasons: unknown;
  try {
    reasons = JSON.parse(why ?? '[]');
  } catch {
    return plan;
  }
  if (!Array.isArray(reasons)) return plan;
  walk(plan).forEach((p, i) => {
    const r: unknown = reasons[i];
    if (typeof r === 'string' && r.length <= 300 && 'reason' in p && p.reason === '')
      (p as { reason: string }).reason = r;
  });
  return plan;
}

/** A voicemail's recording for `groupId`, after its greeting. */
export function writeRecord(
  response: Twiml,
  groupId: string,
  ctx: Pick<TwimlContext, 'publicUrl' | 'voicemailSeconds'>,
): void {
  response.record({
    action: url(ctx, TWILIO_PATHS.voicemail, { group: groupId }),
    // Silence for `timeout` seconds or `#` ends it earlier.
    maxLength: ctx.voicemailSeconds,
    playBeep: true,
    timeout: 5,
    finishOnKey: '#',
    recordingStatusCallback: url(ctx, TWILIO_PATHS.recording, { group: groupId }),
    recordingStatusCallbackEvent: ['completed'],
  });
  // Reached only when nothing was recorded (Twilio then goes on past <Record>).
  response.hangup();
}

/** A TwiML document that says `text` and hangs up. */
export function sayAndHangUp(text: string): string {
  return new Twiml().say({}, text).hangup().toString();
}

/**
 * A voice for each `<Say>` language: "Using an invalid combination of voice and language may result
 * in error and <Say> instruction failure" (https://www.twilio.com/docs/voice/twiml/say), and a
 * language without a voice is spoken by the account's default voice, which speaks English. Amazon
 * Polly's standard voices where Polly has one (`Polly.<Name>`), its neural ones where it has only
 * those (`Polly.<Name>-Neural`), Google's standard voices for the rest
 * (`Google.<locale>-Standard-A`), as Twilio names them
 * (https://www.twilio.com/docs/voice/twiml/say/text-speech, "Available voices and languages").
 */
export const SAY_VOICES: Readonly<Record<string, string>> = {
  'ar-AE': 'Polly.Hala-Neural',
  'ca-ES': 'Polly.Arlet-Neural',
  'cmn-CN': 'Polly.Zhiyu',
  'cs-CZ': 'Polly.Jitka-Neural',
  'cy-GB': 'Polly.Gwyneth',
  'da-DK': 'Polly.Naja',
  'de-AT': 'Polly.Hannelore-Neural',
  'de-DE': 'Polly.Marlene',
  'en-AU': 'Polly.Nicole',
  'en-GB': 'Polly.Amy',
  'en-IE': 'Polly.Niamh-Neural',
  'en-IN': 'Polly.Raveena',
  'en-NZ': 'Polly.Aria-Neural',
  'en-US': 'Polly.Joanna',
  'en-ZA': 'Polly.Ayanda-Neural',
  'es-ES': 'Polly.Conchita',
  'es-MX': 'Polly.Mia',
  'es-US': 'Polly.Lupe',
  'fi-FI': 'Polly.Suvi-Neural',
  'fr-BE': 'Polly.Isabelle-Neural',
  'fr-CA': 'Polly.Chantal',
  'fr-FR': 'Polly.Celine',
  'hi-IN': 'Polly.Aditi',
  'is-IS': 'Polly.Dora',
  'it-IT': 'Polly.Carla',
  'ja-JP': 'Polly.Mizuki',
  'ko-KR': 'Polly.Seoyeon',
  'nb-NO': 'Polly.Liv',
  'nl-BE': 'Polly.Lisa-Neural',
  'nl-NL': 'Polly.Lotte',
  'pl-PL': 'Polly.Ewa',
  'pt-BR': 'Polly.Vitoria',
  'pt-PT': 'Polly.Ines',
  'ro-RO': 'Polly.Carmen',
  'ru-RU': 'Polly.Tatyana',
  'sv-SE': 'Polly.Astrid',
  'tr-TR': 'Polly.Filiz',
  'yue-CN': 'Polly.Hiujin-Neural',
  ...Object.fromEntries(
    'af-ZA bg-BG bn-IN cmn-TW el-GR fil-PH gu-IN he-IL hu-HU id-ID kn-IN lv-LV ml-IN mr-IN ms-MY pa-IN sk-SK sr-RS ta-IN te-IN th-TH uk-UA vi-VN yue-HK'
      .split(' ')
      .map((l) => [l, `Google.${l}-Standard-A`]),
  ),
};

/** A language without a region (eSpeak's `de`) spoken as this locale. */
const PREFERRED: Readonly<Record<string, string>> = {
  en: 'en-GB',
  pt: 'pt-PT',
  es: 'es-ES',
  fr: 'fr-FR',
  de: 'de-DE',
  nl: 'nl-NL',
  zh: 'cmn-CN',
  cmn: 'cmn-CN',
  yue: 'yue-HK',
  ar: 'ar-AE',
};
/** eSpeak's own region codes Twilio does not use. */
const REGIONS: Readonly<Record<string, string>> = { 'es-419': 'es-MX', 'en-029': 'en-US' };

/**
 * This server's text-to-speech code (`en-us`, `de`, `pt-br`) as a `<Say>` language and its voice;
 * null (Twilio's default voice and language) for a language Twilio does not speak.
 */
export function sayVoice(code: string): SayVoice | null {
  // A curated caller language names its own <Say> locale (languages.ts).
  const lower = (callerLanguage(code)?.say ?? code).toLowerCase();
  const [lang = '', region = ''] = (REGIONS[lower] ?? lower).split('-');
  const exact = `${lang}-${region.toUpperCase()}`;
  const locale = SAY_VOICES[exact]
    ? exact
    : PREFERRED[lang] || Object.keys(SAY_VOICES).find((l) => l.startsWith(`${lang}-`)) || null;
  return locale && SAY_VOICES[locale] ? { language: locale, voice: SAY_VOICES[locale] } : null;
}
