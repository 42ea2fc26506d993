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

const notFoundCode: Record<ObjectKind, number> = {
  document: 54100,
  list: 54150,
  map: 54200,
  stream: 54250,
};
const kindName: Record<ObjectKind, string> = {
  document: 'Document',
  list: 'List',
  map: 'Map',
  stream: 'Message Stream',
};

export const errors = {
  objectNotFound: (kind: ObjectKind, id: string) =>
    err(404, notFoundCode[kind], `The requested ${kindName[kind]} resource ${id} was not found`),
  uniqueNameTaken: (kind: ObjectKind, name: string) =>
    err(409, 54301, `Unique name already exists: a ${kindName[kind]} named '${name}' exists`),
  invalidUniqueName: (detail: string) => err(400, 54302, `Invalid unique name: ${detail}`),
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
