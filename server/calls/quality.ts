/**
 * Call quality: how a finished call sounded to each browser on it (src/contracts/records/call-quality.ts),
 * added to the call's history row. POST /api/calls/{callSid}/quality takes a report from a person who
 * was on the call: `callSid` is the call's id as their browser knew it (the caller's own call, or a
 * `<Dial>` leg they answered: call-log.ts `party`), found from what Twilio's webhooks said while
 * the server still knows the call. The report is carried by the row when it is written, or added to
 * it after (row-amend.ts). 204; 400 for a body that is not a report, 403 for a call they were not
 * on, 404 for a call not known.
 */
import { API } from '../../src/contracts/api';
import type { CallQuality } from '../../src/contracts/records/call-quality';
import type { Auth } from '../identity/sessions';
import { readBody } from '../platform/http/body';
import { HttpError } from '../platform/http/errors';
import type { Router } from '../platform/http/router';
import type { CallLog } from './call-log';
import { createRowAmender } from './row-amend';
import type { SyncRest } from '../twilio/sync-rest';

/** At most this many reports a row keeps (one per person). */
const MAX_REPORTS = 10;
const CALL_SID = /^[A-Za-z0-9-]{1,64}$/;

/** A call's quality reports with `report` added: one per person (their latest), at most ten. */
export const mergedQuality = (
  reports: readonly CallQuality[],
  report: CallQuality,
): CallQuality[] => [...reports.filter((r) => r.by !== report.by), report].slice(-MAX_REPORTS);

export interface CallQualityReports {
  /** The call (its history row's `callSid`) `identity` is or was on as `sid`; 403 not theirs, 404 unknown. */
  callOfParty(identity: string, sid: string): string;
  /** Adds one person's report to the row of call `callSid` (now, or once it is written). */
  addQuality(callSid: string, report: CallQuality): void;
}

export function createCallQuality(deps: {
  calls: CallLog;
  rest: SyncRest;
  log: (message: string) => void;
}): CallQualityReports {
  const amend = createRowAmender(deps);
  return {
    callOfParty(identity, sid) {
      const party = deps.calls.partyOf(sid);
      if (!party) throw new HttpError(404, 'no_such_call', 'No call is known by that id.');
      if (party.identity !== identity)
        throw new HttpError(403, 'not_your_call', 'You were not on this call.');
      return party.callSid;
    },
    addQuality(callSid, report) {
      const state = deps.calls.get(callSid);
      if (!state) return;
      state.quality = mergedQuality(state.quality, report);
      // Written, or added by the writer once the row is in (row-amend.ts).
      void amend(state);
    },
  };
}

export function registerCallQualityRoute(
  router: Router,
  deps: { auth: Auth; reports: CallQualityReports },
): void {
  router.route(API.callQuality, async (ctx) => {
    const { user } = deps.auth.requireSession(ctx);
    const callSid = ctx.params.sid ?? '';
    if (!CALL_SID.test(callSid)) throw new HttpError(400, 'bad_request', 'That is not a call id.');
    const report = await readBody(ctx.req, API.callQuality);
    const callId = deps.reports.callOfParty(user.identity, callSid);
    deps.reports.addQuality(callId, { ...report, by: user.identity });
    ctx.res.writeHead(204, { 'Cache-Control': 'no-store' });
    ctx.res.end();
  });
}
