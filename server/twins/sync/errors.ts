/**
 * Twilio-shaped REST errors (`{code, message, more_info, status}`) and the catalogue this service answers with.
 * Codes follow twilio.com/docs/api/errors; the messages the SDK or seed spec quote are kept verbatim.
 */

export class SyncRestError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }

  body(): { code: number; message: string; more_info: string; status: number } {
    return {
      code: this.code,
      message: this.message,
      more_info: `https://www.twilio.com/docs/errors/${this.code}`,
      status: this.status,
    };
  }
}

const err = (status: number, code: number, message: string): SyncRestError =>
  new SyncRestError(status, code, message);

export type ObjectKind = 'document' | 'list' | 'map' | 'stream';

/**
 * Sync's documented errors for data a write may not store, per kind (twilio.com/docs/api/errors/54101,
 * 54156 and 54206: "Invalid Document data", "Invalid List Item data", "Invalid Map Item data",
 * 400), answered as Twilio answers them for data it cannot take (not JSON, not an object); a
 * malformed request is 20001, a missing object 404.
 */
const invalidDataCode: Record<ObjectKind, number> = {
  document: 54101,
  list: 54156,
  map: 54206,
  stream: 20001,
};

const notFoundCode: Record<ObjectKind, number> = {
  document: 54100,
  list: 54150,
  map: 54200,
  stream: 54250,
};
/**
 * What the cloud answers, as the official SDKs' own integration tests (run against the cloud) expect:
 * twilio/twilio-sync-sdk ios/TwilioSync/TwilioSyncTests/TwilioSync{Document,List,Map,Stream}Tests.swift
 * (`testRemove`: opening a removed object by SID is 404 with "Document not found", "List not found",
 * "Map not found", "Stream not found") and sdk/sync/sync-android-kt/…/SubscriptionManagerTest.kt
 * (`subscribeFailed`: 404 / 54100 "Document not found"). The titles of
 * twilio.com/docs/api/errors/54100, 54150 and 54200 are the same words; 54250's page is titled
 * "Message Stream not found", but the cloud says "Stream not found", and that is what a client sees.
 */
const notFoundMessage: Record<ObjectKind, string> = {
  document: 'Document not found',
  list: 'List not found',
  map: 'Map not found',
  stream: 'Stream not found',
};

/**
 * Any SID: two capital letters and 32 lower-case hex digits (the pattern twilio.com/docs/api/errors/54302 gives).
 * Such an id is looked up as a SID, never as a unique name, and no unique name may have this shape.
 */
export const sidShape = /^[A-Z]{2}[0-9a-f]{32}$/;

export const errors = {
  /** As Twilio's cloud: a missing SID gets the kind's code, a missing unique name 54300 whatever the kind. */
  objectNotFound: (kind: ObjectKind, id: string) =>
    sidShape.test(id)
      ? err(404, notFoundCode[kind], notFoundMessage[kind])
      : err(404, 54300, 'Unique name not found'),
  /**
   * A subscription names its object by SID alone, so a missing one is the kind's code whatever the id
   * looks like, as the cloud answers (twilio/twilio-sync-sdk SubscriptionManagerTest.kt `subscribeFailed`:
   * subscribing to document "ET000" fails with 404 / 54100 "Document not found").
   */
  sidNotFound: (kind: ObjectKind) => err(404, notFoundCode[kind], notFoundMessage[kind]),
  uniqueNameTaken: () => err(409, 54301, 'Unique name already exists'),
  /**
   * The cloud's words, as twilio/twilio-sync-sdk's integration tests expect them for every kind
   * (sdk/sync/sync-android-kt/src/commonTest/…/integration/{Document,List,Map,Stream}Test.kt,
   * `create…Error` and `openOrCreate…Error`: 400 / 54302 with exactly this message). The reference
   * page twilio.com/docs/api/errors/54302 ("Invalid unique name") still says 1-256; the live service
   * says 1-320, and limits.maxNameLength follows the live service.
   */
  invalidUniqueName: () =>
    err(
      400,
      54302,
      'Invalid unique name. Expected a string with length 1-320 not matching the SID pattern [A-Z]{2}[a-f0-9]{32}',
    ),
  listItemNotFound: (index: number | string) =>
    err(404, 54151, `No item with index ${String(index)} found`),
  mapItemNotFound: () => err(404, 54201, 'The specified Map Item does not exist'),
  emptyMapKey: () => err(400, 54209, 'SyncMapItem key may not be empty'),
  invalidMapKey: (detail: string) => err(400, 54209, `Invalid SyncMapItem key: ${detail}`),
  documentRevisionMismatch: () =>
    err(412, 54103, 'The revision of the Document does not match the expected revision'),
  listItemRevisionMismatch: () =>
    err(412, 54155, 'The revision of the List Item does not match the expected revision'),
  mapItemRevisionMismatch: () =>
    err(412, 54207, 'The revision of the Map Item does not match the expected revision'),
  mapItemExists: () => err(412, 54208, 'The Map Item already exists (If-Match: -1)'),
  invalidQuery: () => err(400, 54507, 'Invalid query'),
  /** Data Sync cannot take (not JSON, not an object), with the reason. */
  invalidData: (kind: ObjectKind, reason: string) => err(400, invalidDataCode[kind], reason),
  unknownIndex: (name: string) => err(404, 54506, `Index '${name}' does not exist`),
  dataTooLarge: (what: string, limit: number) =>
    err(413, 54006, `${what} exceeds the maximum size of ${limit} bytes`),
  invalidParam: (name: string, detail: string) =>
    err(400, 20001, `Invalid parameter ${name}: ${detail}`),
  invalidPageSize: (value: string) =>
    err(
      400,
      20007,
      `Invalid PageSize parameter. Expected an integer between 1 and 1000, was '${value}'`,
    ),
  invalidPageToken: () => err(400, 20001, 'Invalid PageToken'),
  badJson: () => err(400, 20001, 'Request body is not valid JSON'),
  /** Data that would read back changed (1e99999 as null): refused rather than stored. */
  inexactNumber: (e: Error) => err(400, 20001, `Invalid JSON: ${e.message}`),
  entityWithoutId: () => err(404, 20404, 'Cannot get entity without id'),
  notFound: (path: string) => err(404, 20404, `The requested resource ${path} was not found`),
  methodNotAllowed: (method: string, path: string) =>
    err(405, 20004, `Method ${method} not allowed on ${path}`),
  tooManyRequests: () => err(429, 20429, 'Too many requests from this connection'),
  frameTooLarge: (limit: number) =>
    err(413, 20413, `Frame exceeds the maximum size of ${limit} bytes`),
  internal: () => err(500, 20500, 'Internal server error'),
};

export const reasonPhrase: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
};
