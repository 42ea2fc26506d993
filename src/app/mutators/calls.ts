/**
 * Changes to a call the person is on, made by the server (it holds the media): hold and resume,
 * park, and transfer (blind, or after talking to the target, then completed or cancelled). Each
 * rejects with the server's `ApiError`, whose message a person can read; the call machine shows it
 * on the call's card.
 */
import { API } from '../../contracts/api';
import {
  CALL_CONTROLS,
  type CallControl,
  type TransferRequest,
} from '../../contracts/call-controls';
import type { ApiClient } from '../../io/api/client';
import type { QualityReport } from '../../contracts/records/call-quality';

/** How a finished call sounded here, for its history row (the server adds it to the row). */
export async function reportCallQuality(
  api: ApiClient,
  sid: string,
  report: QualityReport,
): Promise<void> {
  await api.call(API.callQuality, { sid }, report);
}

/**
 * The call machine's `controlCall` for the phone's adapter: the call control by its name (the one
 * list, src/contracts/call-controls.ts), sent as its route.
 */
export function callControls(api: ApiClient) {
  return async (sid: string, action: CallControl, transfer?: TransferRequest): Promise<void> => {
    if (action !== 'transfer') {
      await api.call(CALL_CONTROLS[action], { sid });
      return;
    }
    if (!transfer) throw new Error('Say who to transfer the call to.');
    await api.call(CALL_CONTROLS.transfer, { sid }, transfer);
  };
}
