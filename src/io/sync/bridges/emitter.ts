/** The listener half of an event emitter: what every bridge needs from an SDK object. */
export interface ListenerTarget {
  on(event: string, listener: (payload: never) => void): unknown;
  removeListener(event: string, listener: (payload: never) => void): unknown;
}

/**
 * Adds each handler to `target` and returns the cleanup that removes exactly those handlers. The
 * SDK's own `close()` would drop every listener on the object, including ones other code added.
 */
export function listen(
  target: ListenerTarget,
  handlers: Record<string, (payload: never) => void>,
): () => void {
  const entries = Object.entries(handlers);
  for (const [event, handler] of entries) target.on(event, handler);
  return () => {
    for (const [event, handler] of entries) target.removeListener(event, handler);
  };
}
