/**
 * Changes to a call the person is on, made by the server (it holds the media): hold and resume,
 * park, and transfer (blind, or after talking to the target, then completed or cancelled). Each
 * rejects with the server's `ApiError`, whose message a person can read; the call machine shows it
 * on the call's card.
 */
import { API } from '../../contracts/api';
import type { ApiClient } from '../../io/api/client';
import type { QualityReport } from '../../contracts/records/call-quality';
import type { CallControlInput, TransferRequest } from '../../machines/call.setup';

export async function holdCall(api: ApiClient, sid: string): Promise<void> {
  await api.call(API.hold, { sid });
}

export async function resumeCall(api: ApiClient, sid: string): Promise<void> {
  await api.call(API.resume, { sid });
}

/** Parks the call on the Hold screen (the server answers with the `holds` item it wrote). */
export async function parkCall(api: ApiClient, sid: string): Promise<void> {
  await api.call(API.park, { sid });
}

export async function transferCall(
  api: ApiClient,
  sid: string,
  transfer: TransferRequest,
): Promise<void> {
  await api.call(API.transfer, { sid }, transfer);
}

export async function completeTransfer(api: ApiClient, sid: string): Promise<void> {
  await api.call(API.completeTransfer, { sid });
}

export async function cancelTransfer(api: ApiClient, sid: string): Promise<void> {
  await api.call(API.cancelTransfer, { sid });
}

/** How a finished call sounded here, for its history row (the server adds it to the row). */
export async function reportCallQuality(
  api: ApiClient,
  sid: string,
  report: QualityReport,
): Promise<void> {
  await api.call(API.callQuality, { sid }, report);
}

/** The call machine's `controlCall` (one of the above by its action) for the phone's adapter. */
export function callControls(api: ApiClient) {
  return (sid: string, action: CallControlInput['action'], transfer?: TransferRequest) => {
    switch (action) {
      case 'hold':
        return holdCall(api, sid);
      case 'resume':
        return resumeCall(api, sid);
      case 'park':
        return parkCall(api, sid);
      case 'transfer':
        if (!transfer) return Promise.reject(new Error('Say who to transfer the call to.'));
        return transferCall(api, sid, transfer);
      case 'completeTransfer':
        return completeTransfer(api, sid);
      case 'cancelTransfer':
        return cancelTransfer(api, sid);
    }
  };
}
