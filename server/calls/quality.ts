/**
 * POST /api/calls/{callSid}/quality: how a finished call sounded to the signed-in person's browser
 * (src/contracts/records/call-quality.ts), added to the call's history row. `callSid` is the call's
 * id as their browser knew it; only a person who was on the call may report, and only while the
 * voice service still knows the call (live, or ended in the last minute). 204; 400 for a body that
 * is not a report, 403 for a call they were not on, 404 for a call not known.
 */
import { API } from '../../src/contracts/api';
import type { Auth } from '../identity/sessions';
import { readBody } from '../platform/http/body';
import { HttpError } from '../platform/http/errors';
import type { Router } from '../platform/http/router';
import { CallControlError } from '../twins/voice/model';
import type { CallHistory } from './history';

const CALL_SID = /^[A-Za-z0-9-]{1,64}$/;

export interface CallQualityDeps {
  auth: Auth;
  /**
   * The call (its history row's `callSid`) that `identity` is or was on as `callSid`; throws a
   * {@link CallControlError} (403 not theirs, 404 unknown).
   */
  voice: { callOfParty(identity: string, callSid: string): string };
  history: Pick<CallHistory, 'addQuality'>;
}

export function registerCallQualityRoute(router: Router, deps: CallQualityDeps): void {
  router.route(API.callQuality, async (ctx) => {
    const { user } = deps.auth.requireSession(ctx);
    const callSid = ctx.params.sid ?? '';
    if (!CALL_SID.test(callSid)) throw new HttpError(400, 'bad_request', 'That is not a call id.');
    const report = await readBody(ctx.req, API.callQuality);
    let callId: string;
    try {
      callId = deps.voice.callOfParty(user.identity, callSid);
    } catch (err) {
      if (err instanceof CallControlError) throw new HttpError(err.status, err.code, err.message);
      throw err;
    }
    deps.history.addQuality(callId, { ...report, by: user.identity });
    ctx.res.writeHead(204, { 'Cache-Control': 'no-store' });
    ctx.res.end();
  });
}
