/**
 * How a caller awaits a container command. Every command event may carry a `requestId`; the machine
 * answers with an emitted `command.done` or `command.failed` carrying the same id. {@link ask} does
 * the bookkeeping and returns a promise, so UI code reads `await ask(listActor, { type: 'list.push',
 * data })` and gets the typed result or the {@link SyncFailure}.
 */
import {
  fromCallback,
  type Actor,
  type AnyStateMachine,
  type EventFromLogic,
  type EventObject,
} from 'xstate';
import {
  SyncFailure,
  syncErrors,
  toSyncFailure,
  type ContainerKind,
} from '../contracts/sync-errors';

export interface CommandDoneEvent {
  type: 'command.done';
  requestId: string | null;
  command: string;
  result: unknown;
}

export interface CommandFailedEvent {
  type: 'command.failed';
  requestId: string | null;
  command: string;
  error: SyncFailure;
}

/** A command's settlement as the machines' `runCommand` reports it (see {@link commandRunner}). */
type Settled = { requestId: string | null; command: { type: string } };

/** `command.failed` for a command refused before it ran (invalid, or the container is not open). */
export function rejected(
  command: { type: string; requestId?: string | null | undefined },
  error: SyncFailure,
): CommandFailedEvent {
  return {
    type: 'command.failed',
    requestId: command.requestId ?? null,
    command: command.type,
    error,
  };
}

/** `command.done` for a settled command, answering with `result`. */
export function done(settled: Settled, result: unknown): CommandDoneEvent {
  return {
    type: 'command.done',
    requestId: settled.requestId,
    command: settled.command.type,
    result,
  };
}

/** `command.failed` for a command that ran and failed. */
export function failed(settled: Settled & { error: SyncFailure }): CommandFailedEvent {
  return {
    type: 'command.failed',
    requestId: settled.requestId,
    command: settled.command.type,
    error: settled.error,
  };
}

/**
 * The transition every container machine takes for a command once open: refused when invalid
 * (seed 5, nothing sent), otherwise run. Needs the guard `commandInvalid` and the actions
 * `rejectInvalidCommand` and `startCommand`.
 */
export const commandTransition = [
  { guard: 'commandInvalid', actions: 'rejectInvalidCommand' },
  { actions: 'startCommand' },
] as const;

/** `on` entries refusing each of `commands` with the action `rejectNotReady` (not open yet). */
export function refuseWhileClosed<T extends string>(
  commands: readonly T[],
): { readonly [K in T]: { readonly actions: 'rejectNotReady' } } {
  return Object.fromEntries(
    commands.map((type) => [type, { actions: 'rejectNotReady' } as const]),
  ) as { [K in T]: { actions: 'rejectNotReady' } };
}

/** Why a command sent while a container is still opening is refused. */
export const notOpenYet = (kind: ContainerKind) =>
  new SyncFailure(`The ${kind} is not open yet`, 409, null, 'invalid');

let nextRequest = 0;

const capitalised = (kind: string) => `${kind[0]!.toUpperCase()}${kind.slice(1)}`;

/** The command that removes a container of this kind: `list.removeList`, `map.removeMap` ... */
export const removeCommandOf = (kind: ContainerKind) => `${kind}.remove${capitalised(kind)}`;

/** Sends `command` to a container actor and resolves with its result, or rejects with its failure. */
export function ask<TMachine extends AnyStateMachine, TResult>(
  actor: Actor<TMachine>,
  command: EventFromLogic<TMachine>,
  kind: ContainerKind,
): Promise<TResult> {
  nextRequest += 1;
  const requestId = `request-${nextRequest}`;
  return new Promise<TResult>((resolve, reject) => {
    if ((actor.getSnapshot() as { status: string }).status !== 'active') {
      reject(syncErrors.containerGone(kind));
      return;
    }
    const stop = () => {
      done.unsubscribe();
      failed.unsubscribe();
      ended.unsubscribe();
    };
    const done = actor.on('command.done', (event: CommandDoneEvent) => {
      if (event.requestId !== requestId) return;
      stop();
      resolve(event.result as TResult);
    });
    const failed = actor.on('command.failed', (event: CommandFailedEvent) => {
      if (event.requestId !== requestId) return;
      stop();
      reject(event.error);
    });
    // A container that ends (removed, stopped) before answering must not leave the caller waiting.
    // The SDK announces a local removal before its remove call resolves, so for the remove
    // commands the container ending is the success.
    const ended = actor.subscribe({
      complete: () => {
        stop();
        if ((command as { type: string }).type === removeCommandOf(kind))
          resolve(undefined as TResult);
        else reject(syncErrors.containerGone(kind));
      },
      error: (error) => {
        stop();
        reject(error instanceof SyncFailure ? error : syncErrors.containerGone(kind));
      },
    });
    actor.send({ ...command, requestId });
  });
}

/**
 * The `runCommand` actor every container machine spawns per command: runs it against the port and
 * reports back one `command.settled` event, with the result or the failure as a {@link SyncFailure}.
 */
export function commandRunner<TPort, TCommand>(
  run: (port: TPort, command: TCommand) => Promise<unknown>,
) {
  return fromCallback<EventObject, { port: TPort; command: TCommand; requestId: string | null }>(
    ({ input, sendBack }) => {
      const { command, requestId } = input;
      run(input.port, command).then(
        (result) => sendBack({ type: 'command.settled', requestId, command, ok: true, result }),
        (error: unknown) =>
          sendBack({
            type: 'command.settled',
            requestId,
            command,
            ok: false,
            error: toSyncFailure(error),
          }),
      );
    },
  );
}
