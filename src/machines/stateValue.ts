import type { StateValue } from 'xstate';

/**
 * A state value as the paths of its active leaves, space-separated and in chart order:
 * `open.audio.muted open.link.connected`, `follower`. Shown on the screen as `data-state`, so
 * `[data-state~="open.link.reconnecting"]` selects by one region.
 */
export function stateValueText(value: StateValue): string {
  if (typeof value === 'string') return value;
  return Object.entries(value)
    .flatMap(([key, child]) =>
      child === undefined
        ? [key]
        : stateValueText(child)
            .split(' ')
            .map((leaf) => `${key}.${leaf}`),
    )
    .join(' ');
}
