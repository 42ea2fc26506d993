/**
 * Telling a Voice SDK call something from the server (a routing step, who answered): a
 * user-defined message through Twilio's REST API, which reaches the SDK as the call's
 * `messageReceived` (https://www.twilio.com/docs/voice/api/userdefinedmessage-resource; ringing
 * calls too since May 2023, https://www.twilio.com/en-us/changelog/twilio-voice-sdk-call-message-events--user-defined-messages--act).
 * Messages to one call go one after another, in the order told, each after the webhook that told
 * it has answered (so the call is in the state that answer put it in).
 */
import type twilio from 'twilio';

export function createTeller(
  client: twilio.Twilio,
  log: (message: string) => void,
): (callSid: string, content: Record<string, unknown>) => void {
  const queues = new Map<string, Promise<void>>();
  return (callSid, content) => {
    const before = queues.get(callSid) ?? new Promise<void>((resolve) => setImmediate(resolve));
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
}
