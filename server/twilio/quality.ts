/**
 * Call quality reports on Twilio (POST /api/calls/{sid}/quality, server/calls/quality.ts): which
 * call a browser's call sid belongs to, from what the webhooks said (the caller's own call, or a
 * `<Dial>` leg they answered: calls.ts `party`), and the report added to that call's history row:
 * carried by the row when it is written, or written into the row already in `calls`.
 */
import { CALLS } from '../../src/contracts/objects';
import type { CallQuality } from '../../src/contracts/records/call-quality';
import { mergedQuality } from '../calls/history';
import { HttpError } from '../platform/http/errors';
import type { CallLog } from './calls';
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
      if (!state.written) return; // the row, when written, carries it
      const { index, at } = state.written;
      const data = { ...state.written.data, quality: state.quality };
      state.written = { index, data, at };
      deps.rest
        .updateListItem(CALLS.name, index, data)
        .catch((err: unknown) =>
          deps.log(
            `call ${callSid}: adding a quality report to its history failed: ${err instanceof Error ? err.message : String(err)}`,
          ),
        );
    },
  };
}
