/**
 * What the REST API (rest/routes.ts) asks of the application's calls, done over the twin's media:
 * - user-defined messages and ending a call;
 * - a redirect (https://www.twilio.com/docs/voice/api/call-resource#update-a-call-resource),
 *   applied after the update has answered (asynchronously, as Twilio redirects: ../network.ts): the
 *   call's running verb stops and the new TwiML (inline, or fetched from `Url` with the call's
 *   fields, signed like any webhook) runs on the same call and media leg. A parent interrupted in a
 *   `<Dial>` hangs its bridged callee up (its status callback says `completed`) or cancels the
 *   ringing ones; the `<Dial>`'s action is asked with `DialCallStatus` as it stood, but its answer
 *   is not run (https://twilio.com/changelog/changes-to-dial-behavior-for-enhanced-programmable-sip-feature-accounts).
 *   An answered `<Dial><Client>` leg leaves the bridge (the parent's `<Dial>` ends `completed`, with
 *   `DialCallSid` and `DialCallDuration`, and the parent goes on) and becomes a call of its own
 *   (`Direction=outbound-dial`, `ParentCallSid`), whose `<Client statusCallback>` reports
 *   `completed` when it finally ends. A leg still ringing cannot be redirected (21220);
 * - conference participants held, resumed and removed, and conferences ended (conference.ts).
 * - a call placed through the API to a Voice SDK identity (place.ts) or to a scripted phone's
 *   number (number.ts).
 * Participants added through the API are not carried yet (400, said).
 */
import type { VoiceState } from '../model';
import { send, sendUserMessage } from '../wire';
import { RestError, type VoiceEngine } from '../rest/resources';
import { runAppCall, startRun } from './run-call';
import { answeredCall, hangUpCall } from './call';
import { conferenceEngine } from './conference';
import { placeCall } from './place';
import type { Start } from './run';
import { type AppMode } from '../model';
import { type Fork } from '../model';

/** The account's calls per second (Twilio's default, 1): one API-placed call leaves each second. */
export const CPS_INTERVAL_MS = 1000;

const NOT_IN_PROGRESS = (): RestError =>
  new RestError(400, 21220, 'Call is not in-progress. Cannot redirect.');

export function appEngine(vs: VoiceState): VoiceEngine {
  const notYet = (what: string): never => {
    throw new RestError(400, 20001, `${what} is not carried by the voice twin yet`);
  };
  const mode = (): AppMode => vs.app!;
  const conferences = conferenceEngine(vs);
  /** When the next call placed through the API may leave (1 per second: CPS). */
  let nextPlacing = 0;
  /** Each call's redirects still to apply, one after another. */
  const moving = new Map<string, Promise<void>>();
  const later = (callSid: string, apply: () => void): void => {
    const delayMs = mode().network.redirectDelayMs();
    const next = (moving.get(callSid) ?? Promise.resolve())
      .then(() => new Promise<void>((resolve) => setTimeout(resolve, delayMs)))
      .then(apply)
      .catch((err: unknown) =>
        vs.log(`voice twin: the redirect of ${callSid} was not applied: ${String(err)}`),
      )
      .finally(() => {
        if (moving.get(callSid) === next) moving.delete(callSid);
      });
    moving.set(callSid, next);
  };
  return {
    message(callSid, content) {
      const call = mode().calls.get(callSid);
      if (call) {
        sendUserMessage(vs, call.conn, call.sid, content);
        return;
      }
      const fork = mode().forks.get(callSid);
      if (fork)
        for (const conn of fork.answeredBy ? [fork.answeredBy] : fork.devices)
          sendUserMessage(vs, conn, fork.sid, content);
    },
    hangUp(callSid) {
      const call = mode().calls.get(callSid);
      if (call) {
        hangUpCall(vs, call);
        return;
      }
      const fork = mode().forks.get(callSid);
      if (!fork) return;
      if (fork.cancel) fork.cancel();
      else if (fork.answeredBy) fork.onGone(fork.answeredBy, false);
      else
        for (const conn of [...fork.devices]) {
          send(vs, conn, 'cancel', { callsid: fork.sid });
          fork.onGone(conn, false);
        }
    },
    redirect(callSid, next) {
      // Relative URLs in inline TwiML are read against the application's Voice URL.
      const start: Start =
        'twiml' in next ? { twiml: next.twiml, base: mode().application.voiceUrl } : next;
      // Refused at once when the call cannot be redirected; otherwise moved after the answer
      // (Twilio's redirection is asynchronous: ../network.ts), a call's redirects in their order.
      const call = mode().calls.get(callSid);
      if (call) {
        if (call.ended) throw NOT_IN_PROGRESS();
        later(callSid, () => {
          if (!call.ended) startRun(vs, call, start);
        });
        return;
      }
      const fork = mode().forks.get(callSid);
      // A `<Dial><Number>`'s phone leg (number.ts) leaves its bridge the same way.
      if (fork?.redirect) return fork.redirect(start);
      if (!fork?.answeredBy) throw NOT_IN_PROGRESS();
      later(callSid, () => {
        // An earlier redirect, asked before this one, took the leg out of its bridge meanwhile: it
        // is a call of its own now, under the same CallSid, and this redirect runs on it, as
        // Twilio applies a call's redirects in turn.
        const own = mode().calls.get(callSid);
        if (own) {
          if (!own.ended) startRun(vs, own, start);
          return;
        }
        // The leg was meanwhile hung up or let go: nothing is left to move.
        if (mode().forks.get(callSid) !== fork || !fork.answeredBy) return;
        redirectChild(vs, fork, start);
      });
    },
    place(call, next, options) {
      const start: Start =
        'twiml' in next ? { twiml: next.twiml, base: mode().application.voiceUrl } : next;
      // Calls placed through the API leave at the account's calls per second, 1 by default, the
      // others queued (https://www.twilio.com/docs/glossary/cps: "By default each account is
      // granted 1 CPS for Programmable Voice API calls"; "Outbound calls made using the REST API are
      // throttled and queued": https://www.twilio.com/en-us/changelog/update-your-account-s-calls-per-second--cps--threshold).
      const at = Math.max(vs.now(), nextPlacing);
      nextPlacing = at + CPS_INTERVAL_MS;
      const go = (): void => void placeCall(vs, call, start, options);
      if (at <= vs.now()) go();
      else setTimeout(go, at - vs.now());
    },
    hold: (conference) => conferences.hold(conference),
    remove: (conference, participant) => conferences.remove(conference, participant),
    addParticipant: () => notYet('Adding a conference participant'),
    endConference: (conference) => conferences.end(conference),
  };
}

/** An answered `<Dial><Client>` leg leaves its bridge and runs `start` as a call of its own. */
function redirectChild(vs: VoiceState, fork: Fork, start: Start): void {
  const conn = fork.answeredBy!;
  const answeredAt = fork.answeredAt ?? vs.now();
  const parent = fork.parent;
  const leg = parent ? fork.takeOver() : null;
  if (!parent || !leg) throw NOT_IN_PROGRESS();
  const child = answeredCall(
    fork.sid,
    conn,
    fork.identity,
    leg,
    {
      AccountSid: parent.fields.AccountSid ?? '',
      CallSid: fork.sid,
      ParentCallSid: parent.sid,
      From: fork.from,
      To: `client:${fork.identity}`,
      Direction: 'outbound-dial',
    },
    answeredAt,
    fork.reconnect.token,
  );
  void runAppCall(vs, child, start, null, (status, seconds) => fork.status.ended(status, seconds));
}
