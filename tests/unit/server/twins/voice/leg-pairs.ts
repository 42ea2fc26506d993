/**
 * Real werift legs over loopback for the voice twin's unit tests: a browser (`outside`, a werift
 * client) and the server's leg for it (`inside`), connected; closed after each test.
 */
import { afterEach, expect } from 'vitest';
import { answerLeg, offerLeg, type MediaLeg } from '../../../../../server/twins/voice/media';

/** Call once at a test file's top level: its `pair` makes connected pairs closed after each test. */
export function legPairs(): (
  fastPath?: boolean,
) => Promise<{ outside: MediaLeg; inside: MediaLeg }> {
  const legs: MediaLeg[] = [];
  afterEach(async () => {
    for (const leg of legs.splice(0)) await leg.close();
  });
  const keep = (leg: MediaLeg) => (legs.push(leg), leg);
  return async (fastPath = true) => {
    const outside = keep(await offerLeg());
    const inside = keep(await answerLeg(outside.localSdp, { fastPath }));
    await outside.accept(inside.localSdp);
    await expect
      .poll(() => [outside.state, inside.state], { timeout: 10_000 })
      .toEqual(['connected', 'connected']);
    return { outside, inside };
  };
}
