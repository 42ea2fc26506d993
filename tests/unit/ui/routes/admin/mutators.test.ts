/**
 * The admin mutators: a write the contract refuses names the field and the reason and sends nothing.
 * Ring groups and announcements go through the server's API (a group with its hours in one request;
 * a save against the data the edit started from; the server's refusals worded for the admin);
 * forwarding rules, hours and holidays over the container machines (in-memory objects);
 * announcements keep only their kind's fields.
 */
import { describe, expect, it } from 'vitest';
import {
  createAnnouncement,
  deleteAnnouncement,
  updateAnnouncement,
} from '../../../../../src/app/mutators/admin/announcements';
import { deleteAudio } from '../../../../../src/app/mutators/admin/audio';
import { addRule, swapRules } from '../../../../../src/app/mutators/admin/forwarding';
import {
  createGroup,
  deleteGroup,
  updateGroup,
} from '../../../../../src/app/mutators/admin/groups';
import { saveCalendar, saveSchedule } from '../../../../../src/app/mutators/admin/hours';
import { openList } from '../../../../../src/app/mutators/admin/objects';
import { WriteRefused } from '../../../../../src/app/mutators/core';
import type { Group } from '../../../../../src/contracts/records/group';
import { emptyAnnouncement } from '../../../../../src/domain/announcement';
import { groupToData } from '../../../../../src/domain/group';
import { scheduleToData, weeklySchedule } from '../../../../../src/domain/schedule';
import { apiAnswering } from '../../../io/api/recorded';
import { FakeList } from '../../../machines/syncFakes';
import { fakeSync, writes } from './fakeSync';
import { emptyGroup } from '../../../../../src/contracts/records/group';

const desk: Group = { ...emptyGroup(), name: 'Front desk', number: '200', members: ['tom@x.io'] };

/** What a refused write was refused for, or null when it was not. */
async function refusal(write: Promise<unknown>): Promise<{ field: string; reason: string } | null> {
  try {
    await write;
    return null;
  } catch (error) {
    if (!(error instanceof WriteRefused)) throw error;
    return { field: error.field, reason: error.reason };
  }
}

/** A refusal the server sends: its status, code and sentence. */
const refused = (status: number, code: string, message: string) => () => ({
  status,
  body: { error: { code, message } },
});

describe('ring group mutators', () => {
  it('refuses a group the contract refuses, naming the field and the reason, and sends nothing', async () => {
    const { api, requests } = apiAnswering(null);
    const write = createGroup(api, 'grp-1', { ...desk, ringTimeout: 3 }, 'Europe/London');
    expect(await refusal(write)).toEqual({
      field: 'ringTimeout',
      reason: 'Use a whole number of seconds from 5 to 120.',
    });
    expect(requests).toEqual([]);
  });

  it('asks the server for the group with its hours (a zone alone: Monday to Friday, 09:00–17:00)', async () => {
    const { api, requests } = apiAnswering(() => ({ status: 201, body: null }));
    await createGroup(api, 'grp-1', desk, 'Europe/London');
    expect(requests).toEqual([
      {
        method: 'POST',
        url: '/api/groups/grp-1',
        body: {
          group: groupToData(desk),
          schedule: scheduleToData(weeklySchedule('Europe/London')),
        },
      },
    ]);
  });

  it("words the server's refusal for the admin (a number taken, an id in use)", async () => {
    const taken = apiAnswering(
      refused(409, 'number_taken', '200 is already the extension of Ann.'),
    );
    await expect(createGroup(taken.api, 'grp-1', desk, 'UTC')).rejects.toThrow(
      'The group could not be created: 200 is already the extension of Ann.',
    );
    const agent = apiAnswering(refused(403, 'forbidden', 'Admins only'));
    await expect(createGroup(agent.api, 'grp-1', desk, 'UTC')).rejects.toThrow(
      'The group could not be created: only admins can do this.',
    );
  });

  it('saves against the data the edit started from, and passes on what the server says', async () => {
    const stored = groupToData(desk);
    const theirs = { ...stored, name: 'Front office' };
    const { api, requests } = apiAnswering({ ok: false, current: theirs });
    expect(await updateGroup(api, 'grp-1', stored, { ...desk, name: 'Lobby' })).toEqual({
      ok: false,
      current: theirs,
    });
    expect(requests).toEqual([
      {
        method: 'PUT',
        url: '/api/groups/grp-1',
        body: { base: stored, group: groupToData({ ...desk, name: 'Lobby' }) },
      },
    ]);
  });

  it('refuses an update the contract refuses, sending nothing', async () => {
    const { api, requests } = apiAnswering(null);
    const stored = groupToData(desk);
    expect(await refusal(updateGroup(api, 'grp-1', stored, { ...desk, number: '1' }))).toEqual({
      field: 'number',
      reason: 'Use an extension of 2 to 6 digits, or a number like +442079460000.',
    });
    expect(requests).toEqual([]);
  });

  it('deletes through the server; one deleted by someone else first counts as done', async () => {
    const { api, requests } = apiAnswering(null);
    await deleteGroup(api, 'grp-1');
    expect(requests).toEqual([{ method: 'DELETE', url: '/api/groups/grp-1', body: undefined }]);
    const gone = apiAnswering(refused(404, 'not_found', 'No such group'));
    await expect(deleteGroup(gone.api, 'grp-1')).resolves.toBeUndefined();
    const left = apiAnswering(
      refused(
        502,
        'upstream_error',
        'The group was deleted, but calendar:grp-1 could not be removed. Try deleting again later.',
      ),
    );
    await expect(deleteGroup(left.api, 'grp-1')).rejects.toThrow(
      'The group could not be deleted: The group was deleted, but calendar:grp-1 could not be removed. Try deleting again later.',
    );
  });
});

describe('announcement mutators', () => {
  it('stores only the fields of its kind', async () => {
    const { api, requests } = apiAnswering(() => ({ status: 201, body: null }));
    await createAnnouncement(api, 'gdn-1', {
      ...emptyAnnouncement(),
      name: ' Closed ',
      text: 'We are closed.',
      audioId: 'aud-1',
    });
    expect(requests).toEqual([
      {
        method: 'POST',
        url: '/api/announcements/gdn-1',
        body: {
          announcement: { name: 'Closed', kind: 'tts', text: 'We are closed.', language: 'en-us' },
        },
      },
    ]);
  });

  it('refuses one the contract refuses, naming the field and the reason, and sends nothing', async () => {
    const { api, requests } = apiAnswering(null);
    const bad = { ...emptyAnnouncement(), name: 'Closed', text: 'a\u202eb' };
    const reason = { field: 'text', reason: 'Remove the control characters from the text.' };
    expect(await refusal(createAnnouncement(api, 'gdn-2', bad))).toEqual(reason);
    expect(await refusal(updateAnnouncement(api, 'gdn-1', { name: 'Old' }, bad))).toEqual(reason);
    expect(requests).toEqual([]);
  });

  it('refuses to delete one a group plays, naming the group, and sends nothing', async () => {
    const { api, requests } = apiAnswering(null);
    const groups = new Map([['grp-1', { ...desk, name: 'Sales', guidance: { closed: 'gdn-1' } }]]);
    await expect(deleteAnnouncement(api, 'gdn-1', 'Closed', groups)).rejects.toThrow(
      'Closed is played by the ring group Sales (when closed). Choose another announcement there first.',
    );
    expect(requests).toEqual([]);
    await deleteAnnouncement(api, 'gdn-2', 'Open', groups);
    expect(requests).toEqual([
      { method: 'DELETE', url: '/api/announcements/gdn-2', body: undefined },
    ]);
  });
});

describe('forwarding, hours and audio mutators', () => {
  it('adds a rule, and refuses one without a target, naming the field and sending nothing', async () => {
    const sync = fakeSync();
    const list = new FakeList('ES-f', 'forwarding:grp-1');
    sync.lists.entities.set('forwarding:grp-1', list);
    const actor = await openList(sync.machines, { id: 'forwarding:grp-1', mode: 'open_existing' });
    await addRule(actor, { when: 'busy', after: 20, target: { kind: 'voicemail' }, order: 1 });
    expect(writes(list)).toEqual([
      {
        method: 'push',
        args: [{ when: 'busy', after: 20, target: { kind: 'voicemail' }, order: 1 }, undefined],
      },
    ]);
    const bad = { when: 'sometimes', after: 20, target: { kind: 'voicemail' }, order: 2 };
    expect(await refusal(addRule(actor, bad as never))).toEqual({
      field: 'when',
      reason: 'Choose when calls are forwarded.',
    });
    expect(writes(list)).toHaveLength(1);
    // Swapping two rules gives each the other's place.
    const rule = (order: number) => ({
      when: 'busy' as const,
      after: 20,
      target: { kind: 'voicemail' as const },
      order,
    });
    await addRule(actor, rule(2));
    await swapRules(actor, { index: 1, rule: rule(2) }, { index: 0, rule: rule(1) });
    expect([...list.items.values()].map((i) => i.data.order)).toEqual([2, 1]);
    actor.stop();
  });

  it('refuses hours and holidays the contract refuses, naming the field, and sends nothing', async () => {
    const sync = fakeSync();
    const { actor, doc } = sync.documentActor('schedule:grp-1', { timeZone: 'UTC', week: {} });
    const base = { timeZone: 'UTC', week: {} };
    expect(
      await refusal(
        saveSchedule(actor, base, {
          timeZone: 'UTC',
          week: { mon: [{ start: '9', end: '17:00' }] },
        }),
      ),
    ).toEqual({ field: 'week.mon.0.start', reason: 'Use a time like 09:00.' });
    expect(
      await refusal(
        saveCalendar(actor, base, {
          holidays: [{ id: 'h1', label: ' ', start: '2027-12-25', end: '2027-12-25' }],
        }),
      ),
    ).toEqual({ field: 'holidays.0.label', reason: 'Give the holiday a name, like “Christmas”.' });
    expect(writes(doc)).toEqual([]);
    actor.stop();
  });

  it('deletes an audio file through the API', async () => {
    const { api, requests } = apiAnswering(null);
    await deleteAudio(api, 'aud-abc');
    expect(requests).toEqual([{ method: 'DELETE', url: '/api/audio/aud-abc', body: undefined }]);
  });
});
