import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  decodeFrame,
  encodeFrame,
  parseJsonPayload,
} from '../../../../../server/twins/sync/framing';

describe('Twilsock v3 framing', () => {
  it('writes the header length in UTF-8 bytes and sets payload_size', () => {
    const frame = encodeFrame({ method: 'reply', id: 'TMé' }, { s: 'молоко 🥛' });
    const text = frame.toString('utf8');
    const [preamble, rest] = [
      text.slice(0, text.indexOf('\r\n')),
      text.slice(text.indexOf('\r\n') + 2),
    ];
    const headerBytes = Number(preamble.split(' ')[2]);
    const header = JSON.parse(
      Buffer.from(rest).subarray(0, headerBytes).toString('utf8'),
    ) as Record<string, unknown>;
    expect(preamble.startsWith('TWILSOCK V3.0 ')).toBe(true);
    expect(header).toEqual({
      method: 'reply',
      id: 'TMé',
      payload_size: Buffer.byteLength('{"s":"молоко 🥛"}'),
      payload_type: 'application/json',
    });
  });

  it('names the payload type unless told not to (absent means JSON to the SDK)', () => {
    const header = (frame: Buffer): unknown => {
      const d = decodeFrame(frame);
      if (!d.ok) throw new Error(d.reason);
      return d.frame.header;
    };
    expect(header(encodeFrame({ method: 'notification', id: 'TM1' }, '{}', false))).toEqual({
      method: 'notification',
      id: 'TM1',
      payload_size: 2,
    });
    expect(header(encodeFrame({ method: 'notification', id: 'TM1' }, '{}'))).toMatchObject({
      payload_type: 'application/json',
    });
  });

  it('reads back what it writes, for any header and payload', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.option(fc.jsonValue(), { nil: undefined }),
        (h, payload) => {
          const body = payload === undefined ? undefined : JSON.stringify(payload);
          const decoded = decodeFrame(encodeFrame(h, body));
          expect(decoded.ok).toBe(true);
          if (!decoded.ok) return;
          expect(decoded.frame.payload.toString('utf8')).toBe(body ?? '');
          if (body !== undefined)
            expect(parseJsonPayload(decoded.frame.payload)).toEqual(JSON.parse(body));
        },
      ),
    );
  });

  it('tolerates the trailing CRLF that Twilio servers add', () => {
    const frame = Buffer.concat([encodeFrame({ method: 'ping', id: 'x' }), Buffer.from('\r\n')]);
    expect(decodeFrame(frame)).toMatchObject({
      ok: true,
      frame: { header: { method: 'ping', id: 'x' } },
    });
  });

  it.each([
    ['no preamble', Buffer.from('hello')],
    ['another protocol', Buffer.from('TWILSOCK V2.0 2\r\n{}\r\n')],
    ['a header size that is not a number', Buffer.from('TWILSOCK V3.0 x\r\n{}\r\n')],
    ['a header longer than the frame', Buffer.from('TWILSOCK V3.0 99\r\n{}\r\n')],
    ['a header that is not JSON', Buffer.from('TWILSOCK V3.0 2\r\n{]\r\n')],
    ['a header that is an array', Buffer.from('TWILSOCK V3.0 2\r\n[]\r\n')],
    [
      'invalid UTF-8 in the header',
      Buffer.concat([
        Buffer.from('TWILSOCK V3.0 3\r\n"'),
        Buffer.from([0xff]),
        Buffer.from('"\r\n'),
      ]),
    ],
  ])('refuses %s without throwing', (_, data) => {
    expect(decodeFrame(data)).toMatchObject({ ok: false, reason: expect.any(String) });
  });

  it('reports the id and method of a frame whose payload is cut short', () => {
    const header = JSON.stringify({ id: 'TM1', method: 'message', payload_size: 50 });
    const data = Buffer.from(`TWILSOCK V3.0 ${header.length}\r\n${header}\r\n{}`);
    expect(decodeFrame(data)).toEqual({
      ok: false,
      reason: 'payload_size exceeds frame',
      id: 'TM1',
      method: 'message',
    });
  });

  it('never throws on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.boolean(), (bytes, prefixed) => {
        const data = prefixed
          ? Buffer.concat([Buffer.from('TWILSOCK V3.0 '), Buffer.from(bytes)])
          : Buffer.from(bytes);
        const r = decodeFrame(data);
        expect(typeof r.ok).toBe('boolean');
      }),
    );
  });
});
