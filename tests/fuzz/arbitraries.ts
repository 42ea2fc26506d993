/**
 * fast-check generators for the Sync fuzz test: malformed Twilsock frames, random tunnelled REST requests, and
 * writes that are invalid by construction (for the objects whose contents must not change).
 */
import fc from 'fast-check';

/** Builds a frame byte for byte, trusting nothing: the header text and its declared length are given. */
export function rawFrame(
  headerText: string | Buffer,
  payload: Buffer = Buffer.alloc(0),
  declared?: number,
): Buffer {
  const h = Buffer.isBuffer(headerText) ? headerText : Buffer.from(headerText, 'utf8');
  return Buffer.concat([
    Buffer.from(`TWILSOCK V3.0 ${declared ?? h.length}\r\n`, 'latin1'),
    h,
    Buffer.from('\r\n'),
    payload,
  ]);
}

/** A frame to send, given the id the probe allocated; `expectReply` when the service must answer that id. */
export type FrameSpec = (id: string) => {
  kind: string;
  data: Buffer | string;
  expectReply: boolean;
};

const nasty = fc.constantFrom(
  '',
  '.',
  '..',
  '%',
  '%zz',
  '%ED%A0%80',
  '%C0%AF',
  '%2F',
  '%00',
  '%25',
  '\ud800',
  '\udfff',
  '\u0000',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  '..%2F..%2Fetc%2Fpasswd',
  ' ',
  '+',
  '💥',
  'a'.repeat(400),
  'ES' + '0'.repeat(32),
  'MP' + 'f'.repeat(32),
);

export const weirdString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 4, arbitrary: nasty },
);

const evilNumber = fc.constantFrom(
  -1,
  -0.5,
  0.5,
  1.5,
  1e308,
  -1e308,
  2 ** 53 + 1,
  31_536_001,
  1e21,
  -0,
);

const jsonish = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: evilNumber },
  { weight: 2, arbitrary: weirdString },
);

/** JSON text with hazards the server must survive: deep nesting, huge strings, prototype keys. */
const hazardText = fc.oneof(
  fc
    .constantFrom(10, 1000, 3000, 5000, 20_000)
    .map((n) => `{"data":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`),
  fc.constantFrom(200, 20_000).map((n) => `{"data":${'['.repeat(n)}${']'.repeat(n)}}`),
  fc.constantFrom(17 * 1024, 100_000).map((n) => JSON.stringify({ data: { s: 'x'.repeat(n) } })),
  fc.constant('{"__proto__":{"polluted":1},"data":{"constructor":{"prototype":{"polluted":1}}}}'),
  fc.constant('{"data":{"__proto__":{"isAdmin":true}},"ttl":{"__proto__":1}}'),
  fc.constant('{"data":{"a":1},"data":"dup"}'),
  fc.constant('{"key":{"toString":1},"data":{}}'),
);

const notJson = fc.oneof(
  fc.constantFrom(
    'data_sync',
    '{',
    '{"a":',
    'undefined',
    'NaN',
    "{'a':1}",
    '\u0000',
    '[1,]',
    '{"a":1}}',
  ),
  fc.string({ maxLength: 40 }),
);

const bodyRecord = fc.record(
  {
    data: jsonish,
    ttl: jsonish,
    unique_name: jsonish,
    key: jsonish,
    context: jsonish,
    query_string: fc.oneof(
      weirdString,
      fc.constantFrom('key == "a"', 'data.x > 1 AND (', '(((((key == 1)))))'),
      jsonish,
    ),
    type: jsonish,
    action: fc.oneof(fc.constantFrom('establish', 'cancel'), jsonish),
    correlation_id: jsonish,
    requests: fc.oneof(
      jsonish,
      fc.array(
        fc.record(
          {
            object_sid: jsonish,
            object_type: fc.oneof(
              fc.constantFrom('document', 'list', 'map', 'stream', 'live_query'),
              jsonish,
            ),
            last_event_id: jsonish,
          },
          { requiredKeys: [] },
        ),
        { maxLength: 4 },
      ),
    ),
  },
  { requiredKeys: [] },
);

/** A payload: absent, random JSON, a body-shaped object, non-JSON bytes, or a hazard. */
export const payloadText = fc.oneof(
  { weight: 2, arbitrary: fc.constant('') },
  { weight: 6, arbitrary: bodyRecord.map((b) => JSON.stringify(b)) },
  { weight: 2, arbitrary: jsonish.map((v) => JSON.stringify(v) ?? '') },
  { weight: 2, arbitrary: notJson },
  { weight: 2, arbitrary: hazardText },
);

const segment = (ids: string[]) =>
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc.constantFrom(
        'v3',
        'v4',
        'Lists',
        'Maps',
        'Documents',
        'Streams',
        'Subscriptions',
        'Insights',
        'Items',
        'Context',
        'Messages',
        ...ids,
      ),
    },
    { weight: 2, arbitrary: weirdString.map(encodeURIComponentSafe) },
    { weight: 2, arbitrary: weirdString },
    { weight: 1, arbitrary: fc.integer({ min: -2, max: 5 }).map(String) },
  );

function encodeURIComponentSafe(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Paths that look like the API (so requests reach the handlers) or are garbage. */
export const path = (ids: string[]) =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(
          fc.constantFrom('Lists', 'Maps', 'Documents', 'Streams', 'Insights'),
          fc.oneof(fc.constantFrom(...ids), weirdString),
          fc.option(fc.constantFrom('Items', 'Context', 'Messages'), { nil: undefined }),
          fc.option(
            fc.oneof(fc.constantFrom('0', '1', 'k0', 'k1', '-1', '1.5', '1e3'), weirdString),
            { nil: undefined },
          ),
        )
        .map(([c, id, sub, item]) =>
          [
            '',
            'v3',
            c,
            encodeURIComponentSafe(id),
            sub,
            sub && item !== undefined ? encodeURIComponentSafe(item) : undefined,
          ]
            .filter((s) => s !== undefined)
            .join('/'),
        ),
    },
    { weight: 1, arbitrary: fc.constant('/v4/Subscriptions') },
    {
      weight: 3,
      arbitrary: fc.array(segment(ids), { maxLength: 6 }).map((s) => '/' + s.join('/')),
    },
    { weight: 1, arbitrary: fc.oneof(weirdString, fc.jsonValue({ maxDepth: 1 })) },
  );

const methodValue = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE') },
  {
    weight: 2,
    arbitrary: fc.constantFrom('get', 'post', 'PATCH', 'HEAD', 'OPTIONS', '', ' GET', 'CONNECT'),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.constant({ toString: 1, valueOf: 2 }) },
);

const paramValue = fc.oneof(
  weirdString,
  fc.constantFrom(
    'true',
    '-1',
    '0',
    '1',
    '1e3',
    '100',
    '101',
    '1000',
    '1001',
    'abc',
    'asc',
    'desc',
    'items',
    'PTxyz',
    'PTWzEsImFzYyIsMTBd',
  ),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(weirdString, { maxLength: 3 }),
  fc.dictionary(weirdString, weirdString, { maxKeys: 2 }),
);

const params = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.dictionary(
      fc.oneof(
        fc.constantFrom(
          'HideExpired',
          'Index',
          'Key',
          'From',
          'PageSize',
          'Order',
          'PageToken',
          'Include',
        ),
        weirdString,
      ),
      paramValue,
      { maxKeys: 4 },
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
);

const headers = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.dictionary(
      fc.constantFrom(
        'If-Match',
        'if-match',
        'Content-Type',
        'Twilio-Request-Id',
        '__proto__',
        'constructor',
      ),
      fc.oneof(
        weirdString,
        fc.constantFrom('-1', '0', '1', 'zz'),
        fc.integer(),
        fc.jsonValue({ maxDepth: 1 }),
      ),
      { maxKeys: 3 },
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
);

export const httpRequest = (ids: string[]) =>
  fc.record(
    {
      host: fc.oneof(fc.constant('127.0.0.1:9'), weirdString, fc.jsonValue({ maxDepth: 1 })),
      path: path(ids),
      method: methodValue,
      params,
      headers,
    },
    { requiredKeys: ['path', 'method'] },
  );

/** `undefined` seven times in eight. */
const rarely = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: 7, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

/** A `message` frame carrying a random tunnelled request; sometimes with a lying payload_size. */
export const messageFrame = (ids: string[]): fc.Arbitrary<FrameSpec> =>
  fc
    .tuple(
      fc.oneof(
        { weight: 8, arbitrary: httpRequest(ids) },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
      ),
      payloadText,
      rarely(fc.constantFrom(-1, 1, 1000, 1.5, -5)),
      rarely(fc.constantFrom('text/plain', 'application/octet-stream', 7)),
    )
    .map(([http, payload, lie, type]) => (id: string) => {
      const body = Buffer.from(payload, 'utf8');
      const header = {
        id,
        method: 'message',
        active_grant: 'data_sync',
        payload_type: type ?? 'application/json',
        http_request: http,
        payload_size: lie === undefined ? body.length : body.length + lie,
      };
      // A frame over the frame limit gets 413 only when its header is readable within 4 KiB; this one is.
      return {
        kind: lie === undefined ? 'message' : 'message-lying-size',
        data: rawFrame(JSON.stringify(header), body),
        expectReply: true,
      };
    });

const safeMethods = fc.oneof(
  fc.constantFrom(
    'ping',
    'reply',
    'telemetry.v1',
    'update',
    'notification',
    'client_update',
    'put_notification_ctx',
    'MESSAGE',
    'Init',
    '',
  ),
  fc.string({ maxLength: 10 }).filter((s) => s !== 'close' && s !== 'init'),
  fc.jsonValue({ maxDepth: 2 }).filter((v) => v !== 'close' && v !== 'init'),
  fc.constant({ toString: 1 }),
  fc.constant([[[['deep']]]]),
);

const noReplyMethods = new Set<unknown>(['reply', 'telemetry.v1']);

/** Frame-level garbage. None of these may close the socket or hurt the server. */
export const garbageFrame: fc.Arbitrary<FrameSpec> = fc.oneof(
  fc.string({ maxLength: 200 }).map((s) => () => ({ kind: 'text', data: s, expectReply: false })),
  fc
    .uint8Array({ maxLength: 600 })
    .map((b) => () => ({ kind: 'random-bytes', data: Buffer.from(b), expectReply: false })),
  fc.constant(() => ({ kind: 'empty', data: Buffer.alloc(0), expectReply: false })),
  fc
    .constantFrom(
      'TWILSOCK V3.0 -1\r\n',
      'TWILSOCK V3.0 abc\r\n',
      'TWILSOCK V3.0 99999999999\r\n',
      'TWILSOCK V3.0 \r\n',
      'TWILSOCK V3.0  12\r\n',
      'TWILSOCK V2.0 12\r\n',
      'twilsock v3.0 12\r\n',
      'TWILSOCK V3.0 12\n',
      'TWILSOCK V3.0 12\r',
      'TWILSOCK V3.0 12',
      'TWILSOCK V3.0 1e2\r\n',
      'TWILSOCK V3.0 0x10\r\n',
      '\r\n',
      ' TWILSOCK V3.0 12\r\n',
    )
    .map((pre) => (id: string) => ({
      kind: 'bad-preamble',
      data: Buffer.concat([
        Buffer.from(pre, 'latin1'),
        Buffer.from(JSON.stringify({ id, method: 'ping' })),
      ]),
      expectReply: false,
    })),
  fc
    .tuple(
      fc.oneof(
        fc.integer({ min: -30, max: 30 }).filter((d) => d !== 0 && d !== 2),
        fc.constantFrom(1e6, 1e8),
      ),
      fc.string({ maxLength: 20 }),
    )
    .map(([delta, p]) => (id: string) => {
      const h = JSON.stringify({ id, method: 'ping', payload_size: Buffer.byteLength(p) });
      return {
        kind: 'wrong-header-length',
        data: rawFrame(h, Buffer.from(p), Math.max(0, Buffer.byteLength(h) + delta)),
        expectReply: false,
      };
    }),
  fc
    .string({ minLength: 1, maxLength: 60 })
    .map((s) => () => ({ kind: 'header-not-json', data: rawFrame(s), expectReply: false })),
  fc
    .oneof(
      fc
        .jsonValue({ maxDepth: 2 })
        .filter((v) => typeof v !== 'object' || v === null || Array.isArray(v)),
      fc.constant([{ id: 'x', method: 'ping' }]),
    )
    .map((v) => () => ({
      kind: 'header-not-object',
      data: rawFrame(JSON.stringify(v)),
      expectReply: false,
    })),
  fc.constant((id: string) => ({
    kind: 'header-bad-utf8',
    data: rawFrame(
      Buffer.concat([
        Buffer.from(`{"id":"${id}","method":"ping","x":"`),
        Buffer.from([0xc3, 0x28, 0xff]),
        Buffer.from('"}'),
      ]),
    ),
    expectReply: false,
  })),
  fc
    .tuple(
      fc.oneof(
        fc.integer({ max: -1 }),
        fc.constantFrom(1.5, '3', null, true, [], {}, 1e12, 2 ** 53),
      ),
      safeMethods,
    )
    .map(([size, method]) => (id: string) => ({
      kind: 'bad-payload-size',
      data: rawFrame(JSON.stringify({ id, method, payload_size: size })),
      // null means 0: the frame is fine and the method decides; acks (`reply`) are never answered.
      expectReply: size === null ? !noReplyMethods.has(method) : method !== 'reply',
    })),
  fc
    .oneof(
      fc.integer(),
      fc.constant(null),
      fc.constant({}),
      fc.constant(['TM1']),
      fc.constant(true),
    )
    .map((badId) => () => ({
      kind: 'id-not-a-string',
      data: rawFrame(JSON.stringify({ id: badId, method: 'ping', payload_size: 0 })),
      expectReply: false,
    })),
  fc
    .tuple(safeMethods, fc.option(weirdString, { nil: undefined }))
    .map(([method, token]) => (id: string) => ({
      kind: 'method',
      data: rawFrame(
        JSON.stringify({ id, method, ...(token !== undefined ? { token } : {}), payload_size: 0 }),
      ),
      expectReply: !noReplyMethods.has(method),
    })),
);

/**
 * A write against the protected objects that must be refused (4xx) and change nothing: every one carries at least
 * one invalid part (type, size, precondition, key, index, unique name, query).
 */
export interface BadWrite {
  method: string;
  path: string;
  params?: Record<string, string>;
  headers?: Record<string, string>;
  body: string;
}

const badData = fc.oneof(
  fc.constantFrom<unknown>('x', 1, -1, 1.5, true, false, [], [1, 2], [{ a: 1 }], ''),
  fc.string({ maxLength: 10 }),
  fc.integer(),
  fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
);
const badTtl = fc.constantFrom<unknown>(
  -1,
  -0.5,
  1.5,
  '10',
  31_536_001,
  1e308,
  true,
  {},
  [],
  null,
  'abc',
);
const goodData = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), {
  maxKeys: 3,
});
const wrongRevision = fc.constantFrom('zz', '999', 'abc', '', ' ', '-2', '1.0');
const tooBig = fc.constant({ s: 'x'.repeat(17 * 1024) });

export const badWrite = (t: {
  map: string;
  list: string;
  doc: string;
  stream: string;
  keys: string[];
}): fc.Arbitrary<BadWrite> => {
  const key = fc.constantFrom(...t.keys, 'absent-key');
  const idx = fc.constantFrom('0', '1', '2');
  // A list's context has no ttl, so only bad data counts there.
  const invalidData = fc.oneof(
    badData.map((d) => JSON.stringify({ data: d })),
    tooBig.map((d) => JSON.stringify({ data: d })),
    fc.constantFrom(
      'not json',
      '{',
      '[1]',
      '"str"',
      '42',
      'true',
      `{"data":${'{"a":'.repeat(6000)}1${'}'.repeat(6000)}}`,
    ),
  );
  const invalidBody = fc.oneof(
    invalidData,
    fc.tuple(goodData, badTtl).map(([d, ttl]) => JSON.stringify({ data: d, ttl })),
  );
  return fc.oneof(
    fc.tuple(key, invalidBody).map(([k, body]) => ({
      method: 'PUT',
      path: `/v3/Maps/${t.map}/Items/${encodeURIComponent(k)}`,
      body,
    })),
    fc.tuple(key, invalidBody).map(([k, body]) => ({
      method: 'POST',
      path: `/v3/Maps/${t.map}/Items/${encodeURIComponent(k)}`,
      body,
    })),
    fc
      .tuple(
        fc.constantFrom(...t.keys),
        goodData,
        wrongRevision.map((r) => (r === '' ? '-1' : r)),
      )
      .map(([k, d, r]) => ({
        method: 'PUT',
        path: `/v3/Maps/${t.map}/Items/${encodeURIComponent(k)}`,
        headers: { 'If-Match': r },
        body: JSON.stringify({ data: d }),
      })),
    fc.tuple(fc.constantFrom(...t.keys), wrongRevision).map(([k, r]) => ({
      method: 'DELETE',
      path: `/v3/Maps/${t.map}/Items/${encodeURIComponent(k)}`,
      headers: { 'If-Match': r },
      body: 'data_sync',
    })),
    fc.constant({
      method: 'DELETE',
      path: `/v3/Maps/${t.map}/Items/absent-key`,
      body: 'data_sync',
    }),
    fc
      .tuple(
        fc.oneof(
          fc.constantFrom<unknown>('', 'a'.repeat(321), 5, null, {}, [], true),
          fc.constantFrom(...t.keys),
        ),
        goodData,
      )
      .map(([k, d]) => ({
        method: 'POST',
        path: `/v3/Maps/${t.map}/Items`,
        body: JSON.stringify({ key: k, data: d }),
      })),
    fc.constant({ method: 'PUT', path: `/v3/Maps/${t.map}/Items/`, body: '{"data":{}}' }),
    invalidBody
      .filter((b) => !b.includes('"data":null') && b !== 'null')
      .map((body) => ({ method: 'POST', path: `/v3/Lists/${t.list}/Items`, body })),
    fc
      .tuple(fc.oneof(idx, fc.constantFrom('-1', '1.5', 'abc', '1e3', '99')), invalidBody)
      .map(([i, body]) => ({
        method: 'POST',
        path: `/v3/Lists/${t.list}/Items/${i}`,
        body,
      })),
    fc.tuple(idx, goodData, wrongRevision).map(([i, d, r]) => ({
      method: 'POST',
      path: `/v3/Lists/${t.list}/Items/${i}`,
      headers: { 'If-Match': r },
      body: JSON.stringify({ data: d }),
    })),
    fc.tuple(fc.oneof(idx, fc.constantFrom('99', '-1')), wrongRevision).map(([i, r]) => ({
      method: 'DELETE',
      path: `/v3/Lists/${t.list}/Items/${i}`,
      headers: { 'If-Match': r },
      body: 'data_sync',
    })),
    invalidData.map((body) => ({ method: 'POST', path: `/v3/Lists/${t.list}/Context`, body })),
    invalidBody.map((body) => ({ method: 'POST', path: `/v3/Documents/${t.doc}`, body })),
    fc.tuple(goodData, wrongRevision).map(([d, r]) => ({
      method: 'POST',
      path: `/v3/Documents/${t.doc}`,
      headers: { 'If-Match': r },
      body: JSON.stringify({ data: d }),
    })),
    fc
      .tuple(fc.constantFrom('Lists', 'Maps', 'Streams'), fc.oneof(badTtl, goodData))
      .map(([c, v]) => ({
        method: 'POST',
        path: `/v3/${c}/${c === 'Lists' ? t.list : c === 'Maps' ? t.map : t.stream}`,
        body: JSON.stringify(
          typeof v === 'object' && v !== null && !Array.isArray(v) ? { data: v } : { ttl: v },
        ),
      })),
    fc
      .tuple(
        fc.constantFrom('Lists', 'Maps', 'Documents', 'Streams'),
        fc.constantFrom<unknown>(
          5,
          true,
          {},
          [],
          '',
          'a'.repeat(321),
          'ES' + 'a'.repeat(32),
          'MP' + '0'.repeat(32),
          'AB' + 'c'.repeat(32),
        ),
      )
      .map(([c, name]) => ({
        method: 'POST',
        path: `/v3/${c}`,
        body: JSON.stringify({ unique_name: name }),
      })),
    fc.constantFrom('Lists', 'Maps', 'Documents', 'Streams').map((c) => ({
      method: 'POST',
      path: `/v3/${c}`,
      body: JSON.stringify({
        unique_name:
          c === 'Lists' ? t.list : c === 'Maps' ? t.map : c === 'Documents' ? t.doc : t.stream,
      }),
    })),
    fc.oneof(badData, fc.constant({ s: 'x'.repeat(5000) })).map((d) => ({
      method: 'POST',
      path: `/v3/Streams/${t.stream}/Messages`,
      body: JSON.stringify({ data: d }),
    })),
    fc
      .oneof(
        fc.constantFrom<unknown>('', 'key ==', 'data.x > ', '((((', 'key == "a" AND', 5, null, []),
        fc.string({ maxLength: 6 }).map((s) => s + ' =='),
      )
      .map((q) => ({
        method: 'POST',
        path: `/v3/Insights/${t.map}/Items`,
        body: JSON.stringify({ query_string: q }),
      })),
  );
};
