/**
 * A routing plan (src/domain/routing/engine.ts) written as TwiML (twiml-writer.ts, which writes what
 * the `twilio` package's VoiceResponse does, faster). The plan is walked from its start until a step that waits for the caller or a
 * callee:
 * - announce: `<Play>` of the announcement as this server renders it (what the admin previewed), or
 *   `<Say>` of its text when the speech engine cannot render it now;
 * - forward: nothing to say; the plan goes on with where the rule sends the call;
 * - ring: one `<Dial>` with a `<Client>` per person (several = all at once; in order is a chain of
 *   single rings); its `action` URL carries the rest of the plan (plan-token.ts), and the
 *   branch Twilio reports (`DialCallStatus`) picks how it goes on;
 * - dial: `<Dial><Number>` to an outside number, going on with the no-answer branch if it does not
 *   answer;
 * - voicemail: the greeting (the group's announcement, or a built-in sentence), then `<Record>`.
 * Each `<Client>` and `<Number>` reports its answer and its end (statusCallback), so the history
 * knows who took the call and routing knows who is on one.
 */
import { TWILIO_PATHS } from '../../src/contracts/api';
import { encodeBranches, type Branches } from './plan-token';
import { callerLanguage } from '../guidance/languages';
import { Twiml } from './twiml-writer';
import type { Plan } from '../../src/domain/routing/plan';

/** How an announcement reaches the caller: a recording to play, or text for Twilio to speak. */
export type Spoken = { play: string } | { say: string; language: string | null };

export interface TwimlContext {
  /** The https origin Twilio calls (action and callback URLs are absolute). */
  publicUrl: string;
  /** An announcement (`guidance` id) as the caller hears it; null plays nothing (it is gone). */
  announcement(guidanceId: string): Promise<Spoken | null>;
  groupName(groupId: string): string;
  /** Caller ID of `<Dial><Number>`; null keeps the caller's own (a call from outside). */
  callerId: string | null;
  /** Told when the plan is too long for an action URL (the call goes to voicemail instead). */
  log(message: string): void;
}

/** What the walk reached, for the call's history. */
export interface Reached {
  /** The last forwarding rule's target, as text, or null. */
  forwardedTo: string | null;
  /** Set when the walk ended in voicemail. */
  voicemail: { groupId: string; reason: string } | null;
  /** Why the walk stopped where it did ("Ringing Alice and Bob at once."), when the plan says. */
  reason: string;
}

/** Twilio's `timeout` for a `<Dial>`: 5 to 600 seconds. */
export function dialSeconds(seconds: number): number {
  return Math.min(600, Math.max(5, Math.round(Number.isFinite(seconds) ? seconds : 20)));
}

/** Seconds a voicemail may last; silence for `timeout` or `#` ends it earlier. */
export const VOICEMAIL_MAX_SECONDS = 120;
export const BUILT_IN_GREETING =
  'Nobody can take your call right now. Please leave a message after the tone, then hang up or press the hash key.';

const url = (ctx: TwimlContext, path: string, query: Record<string, string> = {}): string => {
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

const callbacks = (ctx: TwimlContext) => ({
  statusCallback: url(ctx, TWILIO_PATHS.leg),
  statusCallbackEvent: ['answered', 'completed'],
});

export function speak(response: Twiml, spoken: Spoken | null): void {
  if (spoken === null) return;
  if ('play' in spoken) response.play({}, spoken.play);
  else response.say(spoken.language ? { language: spoken.language } : {}, spoken.say);
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
    ring.identities.map((client) => ({ client, attrs, parameters })),
  );
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
  const reached: Reached = { forwardedTo: null, voicemail: null, reason: '' };
  let p: Plan | null = plan;
  while (p) {
    switch (p.kind) {
      case 'announce':
        speak(response, await ctx.announcement(p.guidanceId));
        p = p.then;
        break;
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
      case 'ring':
        reached.reason = p.reason;
        ringClients(
          response,
          ctx,
          p,
          { noAnswer: p.onNoAnswer, busy: p.onBusy },
          {
            group: ctx.groupName(p.groupId),
            groupId: p.groupId,
          },
        );
        return reached;
      case 'dial':
        dialNumber(response, ctx, p, { noAnswer: p.onNoAnswer, busy: p.onNoAnswer });
        return reached;
      case 'voicemail':
        reached.voicemail = { groupId: p.groupId, reason: p.reason };
        reached.reason = p.reason;
        speak(
          response,
          p.guidanceId === null
            ? { say: BUILT_IN_GREETING, language: null }
            : ((await ctx.announcement(p.guidanceId)) ?? {
                say: BUILT_IN_GREETING,
                language: null,
              }),
        );
        response.record({
          action: url(ctx, TWILIO_PATHS.voicemail, { group: p.groupId }),
          maxLength: VOICEMAIL_MAX_SECONDS,
          playBeep: true,
          timeout: 5,
          finishOnKey: '#',
          recordingStatusCallback: url(ctx, TWILIO_PATHS.recording, { group: p.groupId }),
          recordingStatusCallbackEvent: ['completed'],
        });
        // Reached only when nothing was recorded (Twilio then goes on past <Record>).
        response.hangup();
        return reached;
    }
  }
  response.hangup();
  return reached;
}

/** A TwiML document that says `text` and hangs up. */
export function sayAndHangUp(text: string): string {
  return new Twiml().say({}, text).hangup().toString();
}

/** Twilio's `<Say>` languages this server's text-to-speech codes (`en-us`, `de`) map onto. */
const SAY_LANGUAGES = new Set(
  'af-ZA am-ET ar-AE bg-BG bn-IN ca-ES cmn-CN cs-CZ cy-GB da-DK de-AT de-DE el-GR en-AU en-CA en-GB en-IE en-IN en-NZ en-US en-ZA es-ES es-MX es-US fi-FI fil-PH fr-CA fr-FR fr-BE gu-IN he-IL hi-IN hu-HU id-ID is-IS it-IT ja-JP kn-IN ko-KR lv-LV ml-IN mr-IN ms-MY nb-NO nl-BE nl-NL pa-IN pl-PL pt-BR pt-PT ro-RO ru-RU sk-SK sr-RS sv-SE ta-IN te-IN th-TH tr-TR uk-UA vi-VN yue-HK zh-CN zh-HK zh-TW'.split(
    ' ',
  ),
);
const PREFERRED: Readonly<Record<string, string>> = {
  en: 'en-GB',
  pt: 'pt-PT',
  es: 'es-ES',
  fr: 'fr-FR',
  de: 'de-DE',
  nl: 'nl-NL',
  zh: 'zh-CN',
};

/** `en-us` → `en-US`, `de` → `de-DE`; null (Twilio's default) for a language it does not speak. */
export function sayLanguage(code: string): string | null {
  const curated = callerLanguage(code);
  if (curated) return curated.say;
  const [lang = '', region = ''] = code.toLowerCase().split('-');
  const exact = `${lang}-${region.toUpperCase()}`;
  if (SAY_LANGUAGES.has(exact)) return exact;
  if (PREFERRED[lang]) return PREFERRED[lang];
  for (const l of SAY_LANGUAGES) if (l.startsWith(`${lang}-`)) return l;
  return null;
}
