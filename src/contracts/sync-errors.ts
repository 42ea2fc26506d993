/**
 * The error catalogue (seed section 8) and the one error type every sync failure is turned into,
 * so that machines, hooks and toasts can branch on `status`/`code`/`reason` instead of parsing text.
 */

export type ContainerKind = 'list' | 'map' | 'document' | 'stream';

export type SyncFailureReason =
  /** A command or option broke a validation rule (seed 5); nothing was sent. */
  | 'invalid'
  /** The entity or item does not exist. */
  | 'notFound'
  /** create_new hit an existing unique name. */
  | 'nameTaken'
  /** A conditional write lost against a concurrent one. */
  | 'conflict'
  /** The container was removed while we held it. */
  | 'containerGone'
  | 'invalidQuery'
  | 'tokenRejected'
  | 'unauthorized'
  /** The connection dropped or the service did not answer. */
  | 'network'
  | 'unknown';

export class SyncFailure extends Error {
  override readonly name = 'SyncFailure';
  constructor(
    message: string,
    readonly status: number,
    readonly code: number | null,
    readonly reason: SyncFailureReason,
  ) {
    super(message);
  }
}

const NOT_FOUND_CODE: Record<ContainerKind, number> = {
  document: 54100,
  list: 54150,
  map: 54200,
  stream: 54250,
};

export const syncErrors = {
  listItemMissing: (index: number) =>
    new SyncFailure(`No item with index ${index} found`, 404, 54151, 'notFound'),
  mapItemMissing: () =>
    new SyncFailure('The specified Map Item does not exist', 404, 54201, 'notFound'),
  emptyMapKey: () => new SyncFailure('SyncMapItem key may not be empty', 400, 54209, 'invalid'),
  invalidQuery: () => new SyncFailure('Invalid query', 400, 54507, 'invalidQuery'),
  entityWithoutId: () => new SyncFailure('Cannot get entity without id', 404, null, 'invalid'),
  tokenRejected: () =>
    new SyncFailure('Updated token was rejected by server', 400, 51130, 'tokenRejected'),
  invalidArgument: (message: string) => new SyncFailure(message, 400, null, 'invalid'),
  entityMissing: (kind: ContainerKind, id: string) =>
    new SyncFailure(`No ${kind} named "${id}" exists`, 404, NOT_FOUND_CODE[kind], 'notFound'),
  nameTaken: (kind: ContainerKind, id: string) =>
    new SyncFailure(`A ${kind} named "${id}" already exists`, 409, 54301, 'nameTaken'),
  containerGone: (kind: ContainerKind) =>
    new SyncFailure(`This ${kind} has been removed`, 404, null, 'containerGone'),
  tooManyReopens: (kind: ContainerKind, id: string) =>
    new SyncFailure(
      `The ${kind} "${id}" kept disappearing while it was being opened`,
      409,
      54301,
      'conflict',
    ),
};

function reasonForStatus(status: number, code: number | null): SyncFailureReason {
  if (code === 51130) return 'tokenRejected';
  if (code === 54507) return 'invalidQuery';
  if (status === 404) return 'notFound';
  if (status === 409) return 'nameTaken';
  if (status === 412) return 'conflict';
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 400) return 'invalid';
  if (status === 0 || status >= 500) return 'network';
  return 'unknown';
}

function numberField(value: unknown, field: string): number | null {
  if (typeof value !== 'object' || value === null) return null;
  const found = (value as Record<string, unknown>)[field];
  return typeof found === 'number' && Number.isFinite(found) ? found : null;
}

/** Normalises anything thrown by the SDK (its SyncError has `status` and `code`) or by our own code. */
export function toSyncFailure(error: unknown): SyncFailure {
  if (error instanceof SyncFailure) return error;
  const status = numberField(error, 'status') ?? 0;
  const code = numberField(error, 'code');
  const message =
    error instanceof Error && error.message
      ? error.message
      : typeof error === 'string' && error
        ? error
        : 'The sync service failed without saying why';
  return new SyncFailure(message, status, code, reasonForStatus(status, code));
}

/** True when a failure means the container itself is gone (seed 8: ttl or put on a missing container). */
export function isContainerGone(failure: SyncFailure): boolean {
  return failure.status === 404 && failure.code !== 54151 && failure.code !== 54201;
}

/** A sentence a person can act on, for toasts and inline errors. */
export function humanMessage(failure: SyncFailure): string {
  switch (failure.reason) {
    case 'invalid':
    case 'invalidQuery':
      return failure.message;
    case 'notFound':
      return `${failure.message}. It may have been deleted by someone else; refresh to see the current state.`;
    case 'nameTaken':
      return `${failure.message}. Choose another name.`;
    case 'conflict':
      return 'Someone else changed this at the same moment. Your change was not saved; please try again.';
    case 'containerGone':
      return `${failure.message}. Reload the page to start again.`;
    case 'tokenRejected':
    case 'unauthorized':
      return 'Your session could not be renewed. Sign in again to keep working.';
    case 'network':
      return 'The live connection is unavailable. Changes will sync when it is back; check your network.';
    case 'unknown':
      return `Something went wrong while syncing: ${failure.message}`;
  }
}
