/**
 * The service answers as Twilio's cloud does where the SDK (and so the app) could see a difference: cases shaped like
 * twilio-sync's own integration tests, run through the real SDK in Node against the real server process. Sources of
 * every code and message: docs/sync-service.md, "Errors".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncClient } from 'twilio-sync';
import { humanMessage, toSyncFailure } from '../../../src/contracts/sync-errors';
import { startServer, type RunningServer } from '../../support/server';
import { aclOff, client, shutdownClients } from './support';

interface SyncErrorLike {
  message: string;
  status: number;
  code: number;
}

async function failure(p: Promise<unknown>): Promise<SyncErrorLike> {
  try {
    await p;
  } catch (e) {
    return e as SyncErrorLike;
  }
  throw new Error('expected the call to fail');
}

/** SyncError appends "(status: …, code: …)" to the message; compare the message itself. */
const text = (e: SyncErrorLike): string => e.message.replace(/ \(status: \d+, code: \d+\)$/, '');
const answer = (e: SyncErrorLike): [number, number, string] => [e.status, e.code, text(e)];

const hex32 = '0123456789abcdef'.repeat(2);

/**
 * The cloud's words for a bad unique name, as twilio/twilio-sync-sdk's own integration tests expect
 * them (sdk/sync/sync-android-kt/src/commonTest/…/integration/{Document,List,Map,Stream}Test.kt).
 */
const INVALID_NAME =
  'Invalid unique name. Expected a string with length 1-320 not matching the SID pattern [A-Z]{2}[a-f0-9]{32}';

describe('answers as the Twilio cloud does', () => {
  let server: RunningServer;
  let alice: SyncClient;

  beforeAll(async () => {
    server = await startServer();
    await aclOff(server);
    alice = await client(server.url, 'alice@example.com');
  });
  afterAll(async () => {
    await shutdownClients();
    await server.stop();
    server.cleanup();
  });

  it('refuses every SID-shaped unique name with 400/54302, not only the four object prefixes', async () => {
    for (const name of [`AB${hex32}`, `ZZ${hex32}`, `ES${hex32}`]) {
      const refused = await Promise.all([
        failure(alice.document({ id: name, mode: 'create_new' })),
        failure(alice.list({ id: name, mode: 'create_new' })),
        failure(alice.map({ id: name, mode: 'create_new' })),
        failure(alice.stream({ id: name, mode: 'create_new' })),
      ]);
      expect(refused.map(answer), name).toEqual(
        Array.from({ length: 4 }, () => [400, 54302, INVALID_NAME]),
      );
    }
    // open_or_create looks a SID-shaped id up as a SID (404), then its create is refused the same way.
    expect(answer(await failure(alice.map(`CD${hex32}`)))).toEqual([400, 54302, INVALID_NAME]);
    // Not SID-shaped (upper-case hex, 31 digits, lower-case prefix): ordinary names.
    for (const name of [`AB${hex32.toUpperCase()}`, `AB${hex32.slice(1)}`, `ab${hex32}`]) {
      const map = await alice.map({ id: name, mode: 'create_new' });
      expect(map.uniqueName).toBe(name);
    }
  });

  it('refuses a unique name longer than 320 characters with 400/54302 and accepts 320', async () => {
    const long = await failure(alice.list({ id: 'n'.repeat(321), mode: 'create_new' }));
    expect(answer(long)).toEqual([400, 54302, INVALID_NAME]);
    const ok = await alice.list({ id: 'n'.repeat(320), mode: 'create_new' });
    expect(ok.uniqueName).toHaveLength(320);
  });

  it('refuses an existing object’s SID as a unique name, as the SDK’s own tests do (create and open_or_create)', async () => {
    // Shaped like twilio-sync-sdk's createDocumentError / openOrCreateDocumentError (and the list,
    // map and stream ones): the SID of an object just made, given back as a unique name.
    const made = await Promise.all([alice.document(), alice.list(), alice.map(), alice.stream()]);
    const created = await Promise.all([
      failure(alice.document({ id: made[0].sid, mode: 'create_new' })),
      failure(alice.list({ id: made[1].sid, mode: 'create_new' })),
      failure(alice.map({ id: made[2].sid, mode: 'create_new' })),
      failure(alice.stream({ id: made[3].sid, mode: 'create_new' })),
    ]);
    expect(created.map(answer)).toEqual(
      Array.from({ length: 4 }, () => [400, 54302, INVALID_NAME]),
    );
  });

  it('answers a removed stream opened by its SID with 404/54250 "Stream not found", as the SDK’s tests expect', async () => {
    // Shaped like twilio-sync-sdk's TwilioSyncStreamTests.testRemove / testRemoveDirect.
    const stream = await alice.stream();
    await stream.removeStream();
    const gone = await failure(alice.stream({ id: stream.sid, mode: 'open_existing' }));
    expect(answer(gone)).toEqual([404, 54250, 'Stream not found']);
    const doc = await alice.document();
    await doc.removeDocument();
    const docGone = await failure(alice.document({ id: doc.sid, mode: 'open_existing' }));
    expect(answer(docGone)).toEqual([404, 54100, 'Document not found']);
  });

  it('answers a missing unique name with 404/54300 "Unique name not found", whatever the kind', async () => {
    const missing = await Promise.all([
      failure(alice.document({ id: 'cloud-missing', mode: 'open_existing' })),
      failure(alice.list({ id: 'cloud-missing', mode: 'open_existing' })),
      failure(alice.map({ id: 'cloud-missing', mode: 'open_existing' })),
      failure(alice.stream({ id: 'cloud-missing', mode: 'open_existing' })),
    ]);
    expect(missing.map(answer)).toEqual(
      Array.from({ length: 4 }, () => [404, 54300, 'Unique name not found']),
    );
    // open_or_create still creates on that 404 (seed section 8).
    expect((await alice.list('cloud-missing')).uniqueName).toBe('cloud-missing');
  });

  it('answers a missing SID with the kind-specific code and "not found" message', async () => {
    const missing = await Promise.all([
      failure(alice.document({ id: `ET${hex32}`, mode: 'open_existing' })),
      failure(alice.list({ id: `ES${hex32}`, mode: 'open_existing' })),
      failure(alice.map({ id: `MP${hex32}`, mode: 'open_existing' })),
      failure(alice.stream({ id: `TO${hex32}`, mode: 'open_existing' })),
      // A SID of another kind is a SID all the same: the list is missing.
      failure(alice.list({ id: `MP${hex32}`, mode: 'open_existing' })),
    ]);
    expect(missing.map(answer)).toEqual([
      [404, 54100, 'Document not found'],
      [404, 54150, 'List not found'],
      [404, 54200, 'Map not found'],
      [404, 54250, 'Stream not found'],
      [404, 54150, 'List not found'],
    ]);
  });

  it('answers a taken unique name with 409/54301 "Unique name already exists"', async () => {
    await alice.document('cloud-taken');
    const taken = await failure(alice.document({ id: 'cloud-taken', mode: 'create_new' }));
    expect(answer(taken)).toEqual([409, 54301, 'Unique name already exists']);
  });

  it("answers removing or updating a missing item with the seed's words, which the app shows", async () => {
    const list = await alice.list('cloud-items');
    const map = await alice.map('cloud-items');
    const answers = await Promise.all([
      failure(list.remove(7)),
      failure(list.set(7, { a: 1 })),
      failure(list.get(7)),
      failure(map.remove('nobody')),
      failure(map.get('nobody')),
    ]);
    expect(answers.map(answer)).toEqual([
      [404, 54151, 'No item with index 7 found'],
      [404, 54151, 'No item with index 7 found'],
      [404, 54151, 'No item with index 7 found'],
      [404, 54201, 'The specified Map Item does not exist'],
      [404, 54201, 'The specified Map Item does not exist'],
    ]);
    const shown = answers.map((e) => toSyncFailure(e));
    expect(shown.map((f) => [f.reason, f.code])).toEqual([
      ['notFound', 54151],
      ['notFound', 54151],
      ['notFound', 54151],
      ['notFound', 54201],
      ['notFound', 54201],
    ]);
    expect(humanMessage(shown[0]!)).toContain('No item with index 7 found');
    expect(humanMessage(shown[3]!)).toContain('The specified Map Item does not exist');
    // A removed container reached by SID (the SDK addresses open objects by SID) keeps its per-kind code.
    await (
      await client(server.url, 'bob@example.com')
    )
      .map('cloud-items')
      .then((m) => m.removeMap());
    const put = await failure(map.set('k', { a: 1 }));
    expect(answer(put)).toEqual([404, 54200, 'Map not found']);
  });
});
