/**
 * A team and its ring groups in the Twilio stand-in's Sync, for the webhook tests: every routing case
 * the engine has (open all at once, open in order, closed with a rule to a person, a holiday to
 * voicemail, always to an outside number, a forwarding loop), at instants chosen in UTC.
 */
import type { TwilioTestApp } from '../twilio/support';
import { voiceIdentityOf } from '../../../../src/contracts/voice-identity';

/** A person's Voice identity, as the TwiML names them and Twilio posts them back. */
export const vid = voiceIdentityOf;

export const ADA = 'ada@example.com';
export const ALICE = 'alice@example.com';
export const BOB = 'bob@example.com';
export const CAT = 'cat@example.com';

/** Wednesday 10 March 2027, 10:00 UTC: the sales line is open. */
export const WED_OPEN = Date.UTC(2027, 2, 10, 10, 0);
/** The same day at 20:00: closed. */
export const WED_CLOSED = Date.UTC(2027, 2, 10, 20, 0);
/** Thursday 11 March 2027, 10:00: a holiday. */
export const THU_HOLIDAY = Date.UTC(2027, 2, 11, 10, 0);

export const SALES_NUMBER = '+442079460000';
export const SUPPORT_NUMBER = '+442079460001';

const weekdays = (start: string, end: string) => ({
  mon: [{ start, end }],
  tue: [{ start, end }],
  wed: [{ start, end }],
  thu: [{ start, end }],
  fri: [{ start, end }],
  sat: [],
  sun: [],
});
const everyDay = {
  mon: [{ start: '00:00', end: '24:00' }],
  tue: [{ start: '00:00', end: '24:00' }],
  wed: [{ start: '00:00', end: '24:00' }],
  thu: [{ start: '00:00', end: '24:00' }],
  fri: [{ start: '00:00', end: '24:00' }],
  sat: [{ start: '00:00', end: '24:00' }],
  sun: [{ start: '00:00', end: '24:00' }],
};

/** Signs the team in (Ada first, so admin) and writes the groups into the stand-in. */
export async function seedTeam(t: TwilioTestApp): Promise<Record<string, string>> {
  const cookies: Record<string, string> = {};
  for (const [email, name] of [
    [ADA, 'Ada'],
    [ALICE, 'Alice'],
    [BOB, 'Bob'],
    [CAT, 'Cat'],
  ] as const)
    cookies[email] = await t.signIn(email, name);
  const { api } = t;
  // The directory is written in the background: wait for it, so later requests are the tests' own.
  for (let i = 0; i < 200 && (api.maps.get('users')?.size ?? 0) < 4; i++)
    await new Promise((r) => setTimeout(r, 10));
  // Each browser asks for its Sync token, answered once its permissions are in place.
  for (const cookie of Object.values(cookies)) {
    const res = await fetch(`${t.url}/api/token`, { headers: { Cookie: cookie } });
    if (res.status !== 200) throw new Error(`GET /api/token: ${res.status}`);
  }
  // Everyone's browser is heartbeating, except Ada's (offline).
  for (const who of [ALICE, BOB, CAT])
    api.setMapItem('presence', who, { status: 'available', onCall: false }, 3600 * 24 * 365 * 5);

  api.setMapItem('guidance', 'gd-open', {
    name: 'Greeting',
    kind: 'tts',
    text: 'Welcome to Sales.',
    language: 'en-gb',
  });
  api.setMapItem('guidance', 'gd-closed', {
    name: 'Closed',
    kind: 'tts',
    text: 'Sales is closed.',
    language: 'en-gb',
  });
  api.setMapItem('guidance', 'gd-vm', {
    name: 'Voicemail',
    kind: 'tts',
    text: 'Leave a message for Sales.',
    language: 'en-gb',
  });

  api.setMapItem('groups', 'grp-sales', {
    name: 'Sales',
    number: SALES_NUMBER,
    members: [ALICE, BOB],
    strategy: 'simultaneous',
    ringTimeout: 20,
    guidance: { open: 'gd-open', closed: 'gd-closed', voicemail: 'gd-vm' },
  });
  api.setDocument('schedule:grp-sales', { timeZone: 'UTC', week: weekdays('09:00', '17:00') });
  api.setDocument('calendar:grp-sales', {
    holidays: [{ id: 'h1', label: 'Spring holiday', start: '2027-03-11', end: '2027-03-11' }],
  });
  api.pushListItem('forwarding:grp-sales', {
    when: 'closed',
    after: 20,
    target: { kind: 'user', identity: CAT },
    order: 0,
  });
  api.pushListItem('forwarding:grp-sales', {
    when: 'holiday',
    after: 20,
    target: { kind: 'voicemail' },
    order: 1,
  });

  api.setMapItem('groups', 'grp-support', {
    name: 'Support',
    number: SUPPORT_NUMBER,
    members: [ALICE, BOB, CAT],
    strategy: 'sequential',
    ringTimeout: 15,
  });
  api.setDocument('schedule:grp-support', { timeZone: 'UTC', week: everyDay });
  api.pushListItem('forwarding:grp-support', {
    when: 'noAnswer',
    after: 40,
    target: { kind: 'number', number: '+15551230000' },
    order: 0,
  });

  api.setMapItem('groups', 'grp-out', {
    name: 'After hours',
    number: '203',
    members: [BOB],
    strategy: 'simultaneous',
    ringTimeout: 25,
  });
  api.setDocument('schedule:grp-out', { timeZone: 'UTC', week: everyDay });
  api.pushListItem('forwarding:grp-out', {
    when: 'always',
    after: 20,
    target: { kind: 'number', number: '+15559870000' },
    order: 0,
  });

  for (const [id, other, number] of [
    ['grp-a', 'grp-b', '201'],
    ['grp-b', 'grp-a', '202'],
  ] as const) {
    api.setMapItem('groups', id, {
      name: id === 'grp-a' ? 'Loop A' : 'Loop B',
      number,
      members: [ALICE],
      strategy: 'simultaneous',
      ringTimeout: 20,
    });
    api.setDocument(`schedule:${id}`, { timeZone: 'UTC', week: everyDay });
    api.pushListItem(`forwarding:${id}`, {
      when: 'always',
      after: 20,
      target: { kind: 'group', groupId: other },
      order: 0,
    });
  }
  // Renders the announcements once (the speech cache), so every webhook plays them.
  for (const id of ['gd-open', 'gd-closed', 'gd-vm'])
    await t.app.announcements.pcmuOf(api.maps.get('guidance')!.get(id)!.data);
  return cookies;
}
