/**
 * Why a call to a colleague did not connect, in the words the caller reads (on the call card and in
 * /history). The server writes them in the history row (server/calls/), on every backend: the SDK
 * only learns a code.
 */
export const CALL_REASONS = {
  offline: (name: string) => `${name} is offline.`,
  doNotDisturb: (name: string) => `${name} is not taking calls (do not disturb).`,
  busy: (name: string) => `${name} is on another call.`,
  declined: (name: string) => `${name} declined the call.`,
  noAnswer: (name: string) => `${name} did not answer.`,
  yourself: 'You cannot call yourself.',
  /** A call to an outside number that the phone network did not connect. */
  numberFailed: (number: string) => `The call to ${number} could not be connected.`,
  /** A group's call that ended in a message (its outcome `voicemail`). */
  leftVoicemail: (seconds: number) => `Left a voicemail (${seconds} s).`,
  /** A group's call that reached voicemail and ended with no message (its outcome `missed`). */
  noMessage: 'The caller hung up without leaving a message.',
} as const;
