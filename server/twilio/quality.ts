/**
 * Call quality reports on Twilio (POST /api/calls/{sid}/quality, server/calls/quality.ts): which
 * call a browser's call sid belongs to, from what the webhooks said (the caller's own call, or a
 * `<Dial>` leg they answered: calls.ts `party`), and the report added to that call's history row:
 * carried by the row when it is written, or added to it after (row-amend.ts).
 */
import type { CallQuality } from '../../src/contracts/records/call-quality';
import { mergedQuality } from '../calls/history';
import { HttpError } from '../platform/http/errors';
import type { CallLog } from './calls';
import { createRowAmender } from './row-amend';
import type { SyncRest } from './sync-rest';

export interface TwilioCallQuality {
  callOfParty(identity: string, sid: string): string;
  addQuality(callSid: string, report: CallQuality): void;
}

export function createTwilioCallQuality(deps: {
  calls: CallLog;
  rest: SyncRest;
  log: (message: string) => void;
}): TwilioCallQuality {
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
