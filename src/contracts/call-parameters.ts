/**
 * The custom parameters a ringing call carries to the page (TwiML `<Client><Parameter>`, on both
 * backends), read from the SDK's `call.customParameters`; who calls is the invite's `From`. One name per
 * fact, written by the server and read by the page: a name spelled differently on one side (the
 * TwiML once sent `group` while the page read `Group`) silently shows nothing.
 *
 * Twilio passes each `<Parameter name value>` to the Voice SDK as given
 * (https://www.twilio.com/docs/voice/twiml/parameter).
 */
export const CALL_PARAMETERS = {
  /** The ring group's name the call came through ("via Sales"). */
  group: 'Group',
  /** The ring group's id. */
  groupId: 'GroupId',
  /** The caller's display name (a colleague's direct call). */
  callerName: 'CallerName',
  /** Set to '1' on a "Test this group" call. */
  test: 'Test',
  /** Set to '1' on a call ringing back to someone (a park that lasted too long, a transfer not taken). */
  ringBack: 'RingBack',
  /** Why it rings back, in words the card shows ("The call was parked too long"). */
  ringBackReason: 'RingBackReason',
} as const;

/**
 * The parameters a browser's own call carries to the Voice URL (the SDK's `connect({ params })`,
 * which Twilio passes on as fields of the webhook: https://www.twilio.com/docs/voice/sdks/javascript/twilio-device#deviceconnectconnectoptions).
 */
export const PLACED_CALL_PARAMETERS = {
  /**
   * The browser's own id for the attempt (32 hex digits, {@link ATTEMPT_ID}), kept in the call's
   * history row: a call refused before anything rang (`<Reject>`) never tells the SDK its CallSid,
   * so the card finds the row that says why by this id.
   */
  attempt: 'Attempt',
} as const;

/** An attempt id as the browser makes it; anything else is not kept. */
export const ATTEMPT_ID = /^[0-9a-f]{32}$/;

/** What a browser dials to pick up a parked call: `park:<callId>` (the `holds` item's key). */
export const PARK_PREFIX = 'park:';
