/**
 * Voicemail: what a caller hears before the tone when the group has no greeting of its own, and
 * GET /api/voicemail/{id}, which plays a message (the history row's `voicemail.id`, a Recording SID)
 * to the members of the group it was left for and to admins. The audio is Twilio's recording,
 * fetched for the browser (server/calls/media.ts).
 */
import { API } from '../../src/contracts/api';
import type { Auth } from '../identity/sessions';
import { HttpError } from '../platform/http/errors';
import type { RequestContext, Router } from '../platform/http/router';

/** One message: the group it was left for, and how its audio is sent. */
export interface VoicemailMessage {
  groupId: string;
  send(ctx: RequestContext): Promise<void>;
}

/** Where the messages are. */
export interface VoicemailMessages {
  /** The message with this id, or null when there is none. */
  find(id: string): Promise<VoicemailMessage | null>;
}

/**
 * GET /api/voicemail/{id}: the message's audio to admins and the members of the group it was left
 * for; anyone else gets the same 404 as for no message (whether a message exists is not theirs to
 * learn).
 */
export function registerVoicemailRoutes(
  router: Router,
  deps: {
    auth: Auth;
    messages: VoicemailMessages;
    /** The members of a ring group now (none when it is gone). */
    membersOf: (groupId: string) => Promise<readonly string[]>;
  },
): void {
  router.route(API.voicemail, async (ctx) => {
    const user = deps.auth.requireUser(ctx);
    const found = await deps.messages.find(ctx.params.id ?? '');
    const allowed =
      found !== null &&
      (user.role === 'admin' || (await deps.membersOf(found.groupId)).includes(user.identity));
    if (!found || !allowed) throw new HttpError(404, 'not_found', 'No such voicemail message');
    await found.send(ctx);
  });
}
