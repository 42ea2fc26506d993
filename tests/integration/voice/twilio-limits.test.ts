/**
 * Twilio's limits on the twins (issue 24): the server in Twilio mode (`SWITCHBOARD_BACKEND=
 * twilio-twins`) routes group calls as TwiML that the voice twin runs as Twilio documents it, so a
 * plan Twilio would refuse or run differently fails here as it would there.
 *
 * - At most ten `<Client>` nouns in one `<Dial>` (the twin refuses more, as Twilio does): a ring-all
 *   group of eleven rings all eleven, in batches of ten.
 * - A blind transfer to that group does the same: its ring is served by URL (the call update's
 *   `Url`), since inline `Twiml` may have at most 4,000 characters (32018).
 * - Twilio adds 5 s to a `<Dial>`'s `timeout`: a member of an in-order group rings for the group's
 *   ring time as set, not five seconds more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GroupSpec } from '../../support/ring-groups';
import { startServer, type RunningServer } from '../../support/server';
import { shutdownClients } from '../sync/support';
import {
  answerTo,
  closeLegs,
  connected,
  dial,
  hears,
  paramsOf,
  post,
  person as personAt,
  routingTexts,
  storeGroupOnTwilio,
  type Person,
} from './media-support';
import type { Frame } from './support';

let server: RunningServer;
let ada: Person;
let cat: Person;
/** Eleven people besides the caller, each registered and shown available. */
const members: Person[] = [];
const person = (email: string) => personAt(server.url, email);

/** Makes a group as the group form does on Twilio, as Ada (the admin). */
const makeGroup = (g: GroupSpec) => storeGroupOnTwilio(server.url, 'ada@example.com', g);

const invited = (p: Person, mark: number, timeoutMs = 15_000): Promise<Frame> =>
  p.next((f) => f.type === 'invite', mark, timeoutMs);

/** Whether `p`'s ringing for `invite` was cancelled since frame `mark`. */
const cancelled = (p: Person, mark: number, invite: Frame): boolean =>
  p.frames
    .slice(mark)
    .some((f) => f.type === 'cancel' && f.payload.callsid === invite.payload.callsid);

/**
 * `callee` answers `invite` and Cat's call (`calling`, placed at Cat's frame `catMark`) is
 * answered; Cat was told `trail` (the answer's step is told while the call is up, so it is read
 * before Cat hangs up); then Cat hangs up and the callee's leg ends.
 */
async function answeredWithTrail(
  callee: Person,
  invite: Frame,
  calling: ReturnType<typeof dial>,
  catMark: number,
  trail: string[],
): Promise<void> {
  const calleeMark = callee.frames.length;
  await answerTo(callee, invite);
  const { frame } = await calling;
  expect(frame.type).toBe('answer');
  await expect.poll(() => routingTexts(cat, catMark), { timeout: 10_000 }).toEqual(trail);
  cat.send('hangup', { callsid: frame.payload.callsid });
  await callee.next((f) => f.type === 'hangup', calleeMark);
}

beforeAll(async () => {
  server = await startServer({ env: { SWITCHBOARD_BACKEND: 'twilio-twins' } });
  // The first to sign in is the admin.
  ada = await person('ada@example.com');
  cat = await person('cat@example.com');
  for (let i = 1; i <= 11; i++) members.push(await person(`member${i}@example.com`));
}, 120_000);

afterAll(async () => {
  await closeLegs();
  for (const p of [ada, cat, ...members]) p?.close();
  await shutdownClients();
  await server?.stop();
  server?.cleanup();
});

describe('group calls within Twilio’s limits, on the twins', () => {
  it('a ring-all group of eleven rings ten at once, then the eleventh (at most ten <Client>s in one <Dial>)', async () => {
    const ringTimeout = 10;
    await makeGroup({
      id: 'grp-eleven',
      number: '511',
      members: members.map((m) => m.identity),
      ringTimeout,
    });
    const marks = members.map((m) => m.frames.length);
    const catMark = cat.frames.length;
    const calling = dial(cat, '511');
    const first = members.slice(0, 10);
    const invites = await Promise.all(first.map((m, i) => invited(m, marks[i]!)));
    const rangAt = Date.now();
    expect(new Set(invites.map((f) => f.payload.callsid)).size).toBe(10);
    // The eleventh rings once the first ten have rung for the ring time, and they stop.
    const last = members[10]!;
    const toLast = await invited(last, marks[10]!, 20_000);
    expect((Date.now() - rangAt) / 1000).toBeGreaterThanOrEqual(ringTimeout - 0.5);
    for (const [i, m] of first.entries()) expect(cancelled(m, marks[i]!, invites[i]!)).toBe(true);
    // Each batch is told as the people it rings.
    await answeredWithTrail(last, toLast, calling, catMark, [
      'grp-eleven is open.',
      'Ringing member1, member2, member3, member4, member5, member6, member7, member8, member9 and member10 at once.',
      `Nobody answered in ${ringTimeout} s.`,
      'Ringing member11.',
      'member11 answered.',
    ]);
  });

  it('a blind transfer to the group of eleven rings ten at once, then the eleventh, from a ring served by URL', async () => {
    // grp-eleven (the test above): ring-all, 10 s. Cat calls Ada, and Ada sends her to the group.
    const { fromSid, toSid, fromLeg } = await connected(cat, ada);
    const marks = members.map((m) => m.frames.length);
    const adaMark = ada.frames.length;
    // Refused as 32018 (its inline Twiml over 4,000 characters) or 12200 (eleven <Client>s) before
    // the fix: the transfer answered 404, "This call has ended.".
    expect(
      (await post(server.url, ada, `${toSid}/transfer`, { to: '511', mode: 'blind' })).status,
    ).toBe(204);
    await ada.next((f) => f.type === 'hangup' && f.payload.callsid === toSid, adaMark);
    const first = members.slice(0, 10);
    const invites = await Promise.all(first.map((m, i) => invited(m, marks[i]!)));
    const rangAt = Date.now();
    expect(new Set(invites.map((f) => f.payload.callsid)).size).toBe(10);
    for (const invite of invites) expect(paramsOf(invite).get('Group')).toBe('grp-eleven');
    const last = members[10]!;
    expect(last.frames.slice(marks[10]).some((f) => f.type === 'invite')).toBe(false);
    // The eleventh rings once the first ten have rung for the ring time, and they stop.
    const toLast = await invited(last, marks[10]!, 20_000);
    expect((Date.now() - rangAt) / 1000).toBeGreaterThanOrEqual(10 - 0.5);
    for (const [i, m] of first.entries()) expect(cancelled(m, marks[i]!, invites[i]!)).toBe(true);
    const leg = await answerTo(last, toLast);
    await hears(leg, 'sound');
    await hears(fromLeg, 'sound');
    const lastMark = last.frames.length;
    cat.send('hangup', { callsid: fromSid });
    await last.next((f) => f.type === 'hangup', lastMark);
  });

  it('an in-order member rings for the ring time as set, not five seconds more', async () => {
    const ringTimeout = 12;
    const [first, second] = [members[0]!, members[1]!];
    await makeGroup({
      id: 'grp-turns',
      number: '512',
      members: [first.identity, second.identity],
      strategy: 'sequential',
      ringTimeout,
    });
    const [firstMark, secondMark, catMark] = [
      first.frames.length,
      second.frames.length,
      cat.frames.length,
    ];
    const calling = dial(cat, '512');
    const toFirst = await invited(first, firstMark);
    const rangAt = Date.now();
    const toSecond = await invited(second, secondMark, 25_000);
    const turn = (Date.now() - rangAt) / 1000;
    // The first member's turn ends when the ring time has passed (Twilio's 5 s included), and the
    // second is rung at once: well short of ring time + 5 s.
    expect(turn).toBeGreaterThanOrEqual(ringTimeout - 0.5);
    expect(turn).toBeLessThan(ringTimeout + 2.5);
    expect(cancelled(first, firstMark, toFirst)).toBe(true);
    // The second turn, carried on in the <Dial action> URL without its reason, is told by name.
    await answeredWithTrail(second, toSecond, calling, catMark, [
      'grp-turns is open.',
      'Ringing member1 (1 of 2 in order).',
      `Nobody answered in ${ringTimeout} s.`,
      'Ringing member2.',
      'member2 answered.',
    ]);
  });
});
