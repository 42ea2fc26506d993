/**
 * The relay's SRTP cipher (server/twins/voice/srtp.ts): counter mode's keystream as RFC 3711's own
 * test vector gives it, and every packet protected and checked byte for byte as werift's own
 * cipher does (whose methods it replaces), refusals included.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { RtpHeader, SrtpAuthenticationError, SrtpSession } from 'werift';
import { afterAll, describe, expect, it } from 'vitest';
import {
  applyKeystream,
  installSrtpCipher,
  uninstallSrtpCipher,
} from '../../../../../server/twins/voice/srtp';

const hex = (s: string) => Buffer.from(s.replace(/\s/g, ''), 'hex');

/** Two ends of one SRTP association: `a` protects with the keys `b` checks with. */
function association(seed: number) {
  const bytes = (n: number) =>
    Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff));
  const [k1, s1, k2, s2] = [bytes(16), bytes(14).reverse(), bytes(16).reverse(), bytes(14)];
  const profile = 0x0001; // AES_CM_128_HMAC_SHA1_80
  return {
    a: new SrtpSession({
      keys: { localMasterKey: k1, localMasterSalt: s1, remoteMasterKey: k2, remoteMasterSalt: s2 },
      profile,
    }),
    b: new SrtpSession({
      keys: { localMasterKey: k2, localMasterSalt: s2, remoteMasterKey: k1, remoteMasterSalt: s1 },
      profile,
    }),
  };
}

/** A stream of packets: sizes from empty to a large video-sized one, sequence numbers wrapping. */
function packets(): { header: RtpHeader; payload: Buffer }[] {
  const out: { header: RtpHeader; payload: Buffer }[] = [];
  const sizes = [0, 1, 15, 16, 17, 80, 160, 161, 1200];
  for (let i = 0; i < 40; i++) {
    const header = new RtpHeader({
      payloadType: 111,
      sequenceNumber: (0xffe0 + i * 3) & 0xffff,
      timestamp: (0xfffff000 + i * 960) >>> 0,
      ssrc: i % 2 ? 0x12345678 : 0xdeadbeef,
      marker: i === 0,
      ...(i % 3 === 0
        ? { extension: true, extensions: [{ id: 1, payload: Buffer.from([i]) }] }
        : {}),
    });
    out.push({ header, payload: randomBytes(sizes[i % sizes.length]!) });
  }
  return out;
}

/** Every packet of `packets` protected by a fresh association's `a`, then checked by its `b`. */
function run(list: { header: RtpHeader; payload: Buffer }[]) {
  const { a, b } = association(7);
  const sent = list.map(({ header, payload }) => a.encrypt(payload, header));
  const received = sent.map((p) => b.decrypt(p));
  return { sent, received };
}

afterAll(() => installSrtpCipher());

describe('SRTP with the session key kept', () => {
  it("gives RFC 3711's AES-CM keystream (appendix B.2)", () => {
    const aes = createCipheriv('aes-128-ecb', hex('2B7E151628AED2A6ABF7158809CF4F3C'), null);
    aes.setAutoPadding(false);
    const out = Buffer.alloc(48);
    applyKeystream(aes, hex('F0F1F2F3F4F5F6F7F8F9FAFBFCFD'), 0, 0, 0, Buffer.alloc(48), out, 0);
    expect(out.toString('hex').toUpperCase()).toBe(
      'E03EAD0935C95E80E166B16DD92B4EB4' +
        'D23513162B02D0F72A43A2FE4A5F97AB' +
        '41E95B3BB0A2E8DD477901E4FCA894C0',
    );
  });

  it("protects and checks every packet exactly as werift's own cipher does", () => {
    const list = packets();
    uninstallSrtpCipher();
    const theirs = run(list);
    installSrtpCipher();
    const ours = run(list);
    expect(ours.sent.map((p) => p.toString('hex'))).toEqual(
      theirs.sent.map((p) => p.toString('hex')),
    );
    expect(ours.received.map((p) => p.toString('hex'))).toEqual(
      theirs.received.map((p) => p.toString('hex')),
    );
    // And what was checked is what was sent: each header and payload back.
    ours.received.forEach((p, i) => {
      const { header, payload } = list[i]!;
      expect(RtpHeader.deSerialize(p).sequenceNumber).toBe(header.sequenceNumber);
      expect(p.subarray(p.length - payload.length).equals(payload)).toBe(true);
    });
  });

  it('refuses a packet whose payload or tag was changed, as werift does', () => {
    installSrtpCipher();
    const { a, b } = association(3);
    const header = new RtpHeader({ payloadType: 0, sequenceNumber: 5, timestamp: 160, ssrc: 9 });
    const sent = a.encrypt(randomBytes(160), header);
    for (const at of [20, sent.length - 1]) {
      const changed = Buffer.from(sent);
      changed[at] = changed[at]! ^ 0x01;
      expect(() => b.decrypt(changed)).toThrow(SrtpAuthenticationError);
    }
    expect(b.decrypt(sent).length).toBe(sent.length - 10);
  });
});
