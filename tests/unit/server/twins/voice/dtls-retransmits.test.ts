/**
 * Retransmitted DTLS flights (server/twins/voice/dtls-retransmits.ts): two of the server's own legs
 * (real werift peer connections, over loopback) whose every DTLS datagram is delivered twice, as
 * when the other side's retransmission timer fires during a stall of this process. Without the
 * guard the client failed on the second HelloVerifyRequest and the call was silent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isDtls } from 'werift';
import {
  clientHelloCookieLength,
  freshHandshake,
} from '../../../../../server/twins/voice/dtls-retransmits';
import { answerLeg, offerLeg, type MediaLeg } from '../../../../../server/twins/voice/media';
import { TONES } from '../../../../../server/platform/audio/tones';

const legs: MediaLeg[] = [];
afterEach(async () => {
  for (const leg of legs.splice(0)) await leg.close();
});

/** Every DTLS record this leg sends goes out twice (RFC 7983: first byte 20 to 63). */
function doubleDtls(leg: MediaLeg): void {
  const { pc } = leg as unknown as {
    pc: { iceTransports: { connection: { send(data: Buffer): Promise<void> } }[] };
  };
  for (const { connection } of pc.iceTransports) {
    const send = connection.send.bind(connection);
    connection.send = async (data) => {
      await send(data);
      if (isDtls(data)) await send(data);
    };
  }
}

const heard = (leg: MediaLeg): (() => number) => {
  let packets = 0;
  leg.onRtp(() => packets++);
  return () => packets;
};

/** A ClientHello body: version, random, session id, cookie (then suites, which are not read). */
const clientHello = (cookie: number, sessionId = 0) =>
  Buffer.concat([
    Buffer.from([254, 253]),
    Buffer.alloc(32, 7),
    Buffer.from([sessionId]),
    Buffer.alloc(sessionId, 1),
    Buffer.from([cookie]),
    Buffer.alloc(cookie, 9),
    Buffer.from([0, 2, 0xc0, 0x2b]),
  ]);

describe('DTLS retransmissions', () => {
  it('two legs whose every DTLS datagram arrives twice connect and hear each other', async () => {
    const caller = await offerLeg();
    legs.push(caller);
    const callee = await answerLeg(caller.localSdp);
    legs.push(callee);
    doubleDtls(caller);
    doubleDtls(callee);
    await caller.accept(callee.localSdp);
    const callerHeard = heard(caller);
    const calleeHeard = heard(callee);
    caller.play(TONES.busy);
    callee.play(TONES.ringback);
    await expect
      .poll(() => [callerHeard() > 10, calleeHeard() > 10], { timeout: 10_000 })
      .toEqual([true, true]);
    expect([caller.state, callee.state]).toEqual(['connected', 'connected']);
  }, 20_000);

  it('reads a ClientHello cookie past its session id', () => {
    expect(clientHelloCookieLength(clientHello(0))).toBe(0);
    expect(clientHelloCookieLength(clientHello(20))).toBe(20);
    expect(clientHelloCookieLength(clientHello(20, 32))).toBe(20);
  });

  it('drops only the copies werift would mishandle', () => {
    const at = (flight: number, connected = false) => ({ connected, dtls: { flight } });
    const hello = (cookie: number) => ({ msg_type: 1, fragment: clientHello(cookie) });
    const verify = { msg_type: 3, fragment: Buffer.alloc(3) };
    // The client: a HelloVerifyRequest once flight 3 is out (it retransmits flight 3 itself).
    expect(freshHandshake('client', at(1), verify)).toBe(true);
    expect(freshHandshake('client', at(3), verify)).toBe(false);
    expect(freshHandshake('client', at(5), { msg_type: 2, fragment: Buffer.alloc(0) })).toBe(true);
    // The server: a first ClientHello again before flight 4 is answered again (flight 2 lost)...
    expect(freshHandshake('server', at(2), hello(0))).toBe(true);
    // ...after it, dropped; the cookie's ClientHello again gets flight 4 again.
    expect(freshHandshake('server', at(4), hello(0))).toBe(false);
    expect(freshHandshake('server', at(4), hello(20))).toBe(true);
    // Connected: no ClientHello restarts the session.
    expect(freshHandshake('server', at(6, true), hello(20))).toBe(false);
    expect(
      freshHandshake('server', at(6, true), { msg_type: 20, fragment: Buffer.alloc(12) }),
    ).toBe(true);
  });
});
