/**
 * A minor (young-generation) garbage collection on demand, for streams that allocate a buffer per
 * chunk: under a fast upload V8 grows its young generation and lets tens of megabytes of dead
 * chunks pile up before it collects, which shows as resident memory. Collecting the young
 * generation every few megabytes keeps a 50 MB upload's footprint to a few megabytes, for well
 * under a millisecond each time. `--expose-gc` is switched on at runtime, the first time it is
 * needed; where that is not possible, nothing happens.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Gc = (options: { type: 'minor' | 'major'; execution: 'sync' | 'async' }) => void;

let gc: Gc | null | undefined;

function collector(): Gc | null {
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as Gc;
    } catch {
      gc = null;
    }
  }
  return gc;
}

/** Every this many bytes streamed, the young generation is collected. */
export const YOUNG_GC_EVERY_BYTES = 2 * 1024 * 1024;

/** Call with each chunk's size; collects the young generation each time another 2 MB has passed. */
export function youngGcPacer(every = YOUNG_GC_EVERY_BYTES): (bytes: number) => void {
  let since = 0;
  return (bytes) => {
    since += bytes;
    if (since < every) return;
    since = 0;
    collector()?.({ type: 'minor', execution: 'sync' });
  };
}
