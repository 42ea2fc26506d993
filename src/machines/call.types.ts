/**
 * The softphone's vocabulary shared by the device and call machines and their adapter: who is on
 * the other end, why a call ended, what an SDK error code means to a person. Pure: no SDK.
 */

/** The other party of a call. At least one of `identity` and `number` is set. */
export interface Remote {
  /** A Switchboard person's identity (`client:alice` on the wire), or null for a phone number. */
  identity: string | null;
  /** An E.164 phone number, or null for a person. */
  number: string | null;
  /** What the UI shows, when known (from the people list or caller id). */
  displayName: string | null;
}

/** The SDK's `from`/`to` address (`client:alice` or `+4420…`) as a {@link Remote}. */
export function remoteFromAddress(address: string, displayName: string | null = null): Remote {
  return address.startsWith('client:')
    ? { identity: address.slice('client:'.length), number: null, displayName }
    : { identity: null, number: address, displayName };
}

/** The address the SDK dials for a {@link Remote}: `client:<identity>` for a person, else the number. */
export function addressOf(remote: Remote): string {
  return remote.identity !== null ? `client:${remote.identity}` : (remote.number ?? '');
}

/** An SDK error as the machines keep it: its numeric code and its message. */
export interface VoiceError {
  /** The SDK's code (`TwilioError.code`), or null for our own failures (e.g. no voice token). */
  code: number | null;
  /** A sentence a person can read. */
  message: string;
}

/** Why a call ended. Local reasons come from this tab; the others from the SDK's error codes. */
export type CallEndReason =
  | 'hungUpByYou'
  | 'hungUpByThem'
  | 'parked'
  | 'transferred'
  | 'cancelled'
  | 'missed'
  | 'rejected'
  | 'noAnswer'
  | 'busy'
  | 'declined'
  | 'notFound'
  | 'reconnectFailed'
  | 'connectionLost'
  | 'gatewayError'
  | 'microphoneBlocked'
  | 'microphoneMissing'
  | 'failed';

const END_REASON_BY_CODE: Readonly<Record<number, CallEndReason>> = {
  31480: 'noAnswer',
  31486: 'busy',
  31603: 'declined',
  31404: 'notFound',
  31209: 'reconnectFailed',
  31003: 'connectionLost',
  53405: 'connectionLost',
  31005: 'gatewayError',
  31401: 'microphoneBlocked',
  31402: 'microphoneMissing',
};

/**
 * The end reason an SDK call error code stands for; `failed` for a code we do not know. Needs the
 * Device option `enableImprovedSignalingErrorPrecision`, without which 31480/31486/31603/31404
 * all arrive as 31005.
 */
export function endReasonForCode(code: number): CallEndReason {
  return END_REASON_BY_CODE[code] ?? 'failed';
}

const END_REASON_TEXT: Readonly<Record<CallEndReason, string>> = {
  hungUpByYou: 'You hung up.',
  hungUpByThem: 'The other side hung up.',
  parked: 'You parked the call: it waits on the Hold screen for anyone to pick up.',
  transferred: 'You transferred the call.',
  cancelled: 'The caller hung up before you answered.',
  missed: 'Missed call.',
  rejected: 'You declined the call.',
  noAnswer: 'No answer: they are not available.',
  busy: 'Busy: they are on another call.',
  declined: 'They declined the call.',
  notFound: 'No such number or person.',
  reconnectFailed: 'The call dropped and could not be reconnected.',
  connectionLost: 'The connection was lost.',
  gatewayError: 'The call could not be completed.',
  microphoneBlocked: 'The browser blocked the microphone.',
  microphoneMissing: 'No microphone was found.',
  failed: 'The call failed.',
};

/** A sentence a person can read for an end reason. */
export function describeEndReason(reason: CallEndReason): string {
  return END_REASON_TEXT[reason];
}

/** Device error codes meaning the voice service refused our token or grants. */
export const AUTH_ERROR_CODES: readonly number[] = [
  20101, 20104, 20151, 31201, 31202, 31204, 31205, 31207,
];
/** Device error codes meaning the signalling socket was lost (the SDK reconnects by itself). */
export const CONNECTION_ERROR_CODES: readonly number[] = [31000, 31005, 53001];

const DEVICE_ERROR_TEXT: Readonly<Record<number, string>> = {
  20101: 'Your voice sign-in was refused (invalid token). Try again.',
  20104: 'Your voice sign-in expired. Try again.',
  20151: 'You are not allowed to take calls here.',
  31201: 'You are not allowed to take calls here.',
  31202: 'Your voice sign-in was refused (invalid signature). Try again.',
  31204: 'Your voice sign-in was refused (invalid token). Try again.',
  31205: 'Your voice sign-in expired. Try again.',
  31207: 'Your voice sign-in was refused (it lives too long). Try again.',
  31401: 'The browser blocked the microphone. Allow it in the address bar, then try again.',
  31402: 'No microphone was found. Plug one in, then try again.',
  31000: 'The connection to the phone service was lost.',
  31005: 'The connection to the phone service was lost.',
  53001: 'The connection to the phone service was lost.',
};

/** A sentence a person can read for a Device error code, with the SDK's message as a fallback. */
export function describeDeviceError(code: number | null, sdkMessage = ''): string {
  const known = code === null ? undefined : DEVICE_ERROR_TEXT[code];
  if (known !== undefined) return known;
  const detail = sdkMessage.trim() === '' ? '' : ` ${sdkMessage.trim()}`;
  return `The phone had a problem${code === null ? '' : ` (${code})`}.${detail}`;
}
