/**
 * Telling a Voice SDK call something from the server (a routing step, who answered): a
 * user-defined message through Twilio's REST API, which reaches the SDK as the call's
 * `messageReceived` (https://www.twilio.com/docs/voice/api/userdefinedmessage-resource; ringing
 * calls too since May 2023, https://www.twilio.com/en-us/changelog/twilio-voice-sdk-call-message-events--user-defined-messages--act).
 * Messages to one call go one after another, in the order told, each after the webhook that told
 * it has answered (so the call is in the state that answer put it in).
 *
 * A browser's own call is known to its SDK by its CallSid only once Twilio has sent it `ringing`
 * (a `<Dial>` rings) or its answer; a message before that names a call the SDK does not know yet,
 * and the SDK drops it (`Call._onMessageReceived`: "Received a message from a different callsid").
 * So messages to such a call wait ({@link Teller.wait}) until it is {@link Teller.ready}, or at most
 * {@link WAIT_MAX_MS}.
 */
import type twilio from 'twilio';

/** The longest messages wait for their call's SDK to know it. */
export const WAIT_MAX_MS = 30_000;

export interface Teller {
  (callSid: string, content: Record<string, unknown>): void;
  /** Messages to `callSid` wait: its SDK does not know its CallSid yet. */
  wait(callSid: string): void;
  /** Its SDK knows the CallSid now (the call rang, or was answered): messages waiting go. */
  ready(callSid: string): void;
}

export function createTeller(client: twilio.Twilio, log: (message: string) => void): Teller {
  const queues = new Map<string, Promise<void>>();
  const gates = new Map<string, { open: Promise<void>; release: () => void }>();
  /** Calls their SDK knows (for an hour): a later webhook of theirs does not make them wait. */
  const known = new Set<string>();
  const tell = (callSid: string, content: Record<string, unknown>): void => {
    const gate = gates.get(callSid)?.open ?? Promise.resolve();
    const before =
      queues.get(callSid) ?? gate.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
    const next = before
      .then(() =>
        client.calls(callSid).userDefinedMessages.create({ content: JSON.stringify(content) }),
      )
      .then(
        () => undefined,
        (err: unknown) =>
          log(
            `call ${callSid}: telling the browser failed: ${err instanceof Error ? err.message : String(err)}`,
          ),
      );
    queues.set(callSid, next);
    void next.then(() => {
      if (queues.get(callSid) === next) queues.delete(callSid);
    });
  };
  return Object.assign(tell, {
    wait(callSid: string): void {
      if (gates.has(callSid) || known.has(callSid)) return;
      let release!: () => void;
      const open = new Promise<void>((resolve) => (release = resolve));
      const timer = setTimeout(() => gate.release(), WAIT_MAX_MS);
      timer.unref();
      const gate = {
        open,
        release: () => {
          clearTimeout(timer);
          gates.delete(callSid);
          release();
        },
      };
      gates.set(callSid, gate);
    },
    ready(callSid: string): void {
      gates.get(callSid)?.release();
      if (known.has(callSid)) return;
      known.add(callSid);
      setTimeout(() => known.delete(callSid), 60 * 60_000).unref();
    },
  });
}
