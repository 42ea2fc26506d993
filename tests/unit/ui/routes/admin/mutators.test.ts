import { scheduleToData, weeklySchedule } from '../../../../../src/domain/schedule';
/**
 * The admin mutators over the container machines (in-memory objects): a write the contract refuses
 * names the field and the reason and sends nothing; a group's create makes its schedule, calendar
 * and forwarding list before its item and removes what it made when a step fails; on Twilio the
 * server's objects are opened, not created; a save against stale data is declined with their
 * version; a delete removes a group's objects; announcements keep only their kind's fields.
 */
import { describe, expect, it, vi } from 'vitest';
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
  prepareGroupObjects,
  updateGroup,
} from '../../../../../src/app/mutators/admin/groups';
import { saveCalendar, saveSchedule } from '../../../../../src/app/mutators/admin/hours';
import { openList } from '../../../../../src/app/mutators/admin/objects';
import { WriteRefused } from '../../../../../src/app/mutators/core';
import type { Group } from '../../../../../src/contracts/records/group';
import { emptyAnnouncement } from '../../../../../src/domain/announcement';
import { groupToData } from '../../../../../src/domain/group';
import { createApiClient } from '../../../../../src/io/api/client';
import { FakeList, serverError } from '../../../machines/syncFakes';
import { documentWith, fakeSync, writes } from './fakeSync';
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

/** The real API client over a fetch that answers every request with `answer` (null: 204). */
function apiAnswering(answer: unknown) {
  const requests: { method: string; url: string; body: unknown }[] = [];
  const api = createApiClient({
    fetch: (url, init) => {
      requests.push({
        method: init?.method ?? 'GET',
        url: url as string,
        body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
      });
      return Promise.resolve(
        answer === null
          ? new Response(null, { status: 204 })
          : new Response(JSON.stringify(answer), { status: 200 }),
      );
    },
    onUnauthorized: () => {},
  });
  return { api, requests };
}

describe('ring group mutators', () => {
  it('refuses a group the contract refuses, naming the field and the reason, and makes nothing', async () => {
    const sync = fakeSync();
    const { actor: groups, map } = await sync.openMap('groups');
    const prepare = vi.fn(() => Promise.resolve(false));
    const write = createGroup(
      { machines: sync.machines, groups },
      'grp-1',
      { ...desk, ringTimeout: 3 },
      'Europe/London',
      prepare,
    );
    expect(await refusal(write)).toEqual({
      field: 'ringTimeout',
      reason: 'Use a whole number of seconds from 5 to 120.',
    });
    expect(prepare).not.toHaveBeenCalled();
    expect(sync.documents.creates).toEqual([]);
    expect(sync.lists.creates).toEqual([]);
    expect(writes(map)).toEqual([]);
  });

  it('creates the schedule, calendar and forwarding list, then the item', async () => {
    const sync = fakeSync();
    const { actor: groups, map } = await sync.openMap('groups');
    await createGroup({ machines: sync.machines, groups }, 'grp-1', desk, 'Europe/London');
    expect(sync.documents.creates.map((c) => [c.id, c.mode, c.data])).toEqual([
      // A zone alone: open Monday to Friday, 09:00–17:00, in it.
      ['schedule:grp-1', 'create_new', scheduleToData(weeklySchedule('Europe/London'))],
      ['calendar:grp-1', 'create_new', { holidays: [] }],
    ]);
    expect(sync.lists.creates.map((c) => [c.id, c.mode])).toEqual([
      ['forwarding:grp-1', 'create_new'],
    ]);
    expect(writes(map)).toEqual([{ method: 'set', args: ['grp-1', groupToData(desk), undefined] }]);
  });

  it('removes what it made when a step fails half way, and lists nothing', async () => {
    const sync = fakeSync();
    const { actor: groups, map } = await sync.openMap('groups');
    sync.lists.createErrors.push(serverError());
    await expect(
      createGroup({ machines: sync.machines, groups }, 'grp-1', desk, 'UTC'),
    ).rejects.toThrow(/^The group could not be created: /);
    for (const name of ['schedule:grp-1', 'calendar:grp-1'])
      expect(sync.documents.entities.get(name)?.calls.map((c) => c.method)).toEqual([
        'removeDocument',
      ]);
    expect(writes(map)).toEqual([]);
  });

  it('says the names are taken when an object of the group exists already', async () => {
    const sync = fakeSync();
    const { actor: groups } = await sync.openMap('groups');
    sync.documents.entities.set('calendar:grp-1', documentWith({ holidays: [] }));
    await expect(
      createGroup({ machines: sync.machines, groups }, 'grp-1', desk, 'UTC'),
    ).rejects.toThrow(
      'The group could not be created: its schedule or calendar name is already taken. Try again.',
    );
    // The schedule it had made is removed; the calendar it did not make is left alone.
    expect(sync.documents.entities.get('schedule:grp-1')?.calls.map((c) => c.method)).toEqual([
      'removeDocument',
    ]);
    expect(sync.documents.entities.get('calendar:grp-1')?.calls).toEqual([]);
  });

  it('on Twilio opens the objects the server made instead of creating them', async () => {
    const sync = fakeSync();
    const { actor: groups, map } = await sync.openMap('groups');
    sync.documents.entities.set('schedule:grp-1', documentWith({ timeZone: 'UTC', week: {} }));
    sync.documents.entities.set('calendar:grp-1', documentWith({ holidays: [] }));
    sync.lists.entities.set('forwarding:grp-1', new FakeList('ES-f', 'forwarding:grp-1'));
    const { api, requests } = apiAnswering({ created: true });
    await createGroup({ machines: sync.machines, groups }, 'grp-1', desk, 'UTC', (id, zone) =>
      prepareGroupObjects(api, id, zone),
    );
    expect(requests).toEqual([
      { method: 'POST', url: '/api/groups/grp-1/objects', body: { timeZone: 'UTC' } },
    ]);
    expect(sync.documents.creates).toEqual([]);
    expect(sync.lists.creates).toEqual([]);
    expect(sync.documents.opens.map((o) => [o.id, o.mode])).toEqual([
      ['schedule:grp-1', 'open_existing'],
      ['calendar:grp-1', 'open_existing'],
    ]);
    expect(writes(map).map((c) => c.method)).toEqual(['set']);
  });

  it('saves against the data the edit started from; a later save elsewhere declines it', async () => {
    const sync = fakeSync();
    const stored = groupToData(desk);
    const { actor: groups, map } = await sync.openMap('groups', { 'grp-1': stored });
    expect(await updateGroup(groups, 'grp-1', stored, { ...desk, name: 'Reception' })).toEqual({
      ok: true,
    });
    expect(map.items.get('grp-1')?.data).toMatchObject({ name: 'Reception' });
    // Another admin renamed it since this edit started.
    const theirs = { ...stored, name: 'Front office' };
    map.seed('grp-1', theirs);
    expect(await updateGroup(groups, 'grp-1', stored, { ...desk, name: 'Lobby' })).toEqual({
      ok: false,
      current: theirs,
    });
    expect(map.items.get('grp-1')?.data).toEqual(theirs);
  });

  it('refuses an update the contract refuses, sending nothing', async () => {
    const sync = fakeSync();
    const stored = groupToData(desk);
    const { actor: groups, map } = await sync.openMap('groups', { 'grp-1': stored });
    expect(await refusal(updateGroup(groups, 'grp-1', stored, { ...desk, number: '1' }))).toEqual({
      field: 'number',
      reason: 'Use an extension of 2 to 6 digits, or a number like +442079460000.',
    });
    expect(writes(map)).toEqual([]);
  });

  it('deletes the item, then the schedule, calendar and forwarding list (gone ones count as done)', async () => {
    const sync = fakeSync();
    const { actor: groups, map } = await sync.openMap('groups', { 'grp-1': groupToData(desk) });
    sync.documents.entities.set('schedule:grp-1', documentWith({ timeZone: 'UTC', week: {} }));
    const list = new FakeList('ES-f', 'forwarding:grp-1');
    sync.lists.entities.set('forwarding:grp-1', list);
    await deleteGroup({ machines: sync.machines, groups }, 'grp-1');
    expect(writes(map)).toEqual([{ method: 'remove', args: ['grp-1'] }]);
    expect(sync.documents.entities.get('schedule:grp-1')?.calls.map((c) => c.method)).toEqual([
      'removeDocument',
    ]);
    expect(list.calls.map((c) => c.method)).toContain('removeList');
  });
});

describe('announcement mutators', () => {
  it('stores only the fields of its kind', async () => {
    const sync = fakeSync();
    const { actor, map } = await sync.openMap('guidance');
    await createAnnouncement(actor, 'gdn-1', {
      ...emptyAnnouncement(),
      name: ' Closed ',
      text: 'We are closed.',
      audioId: 'aud-1',
    });
    expect(map.items.get('gdn-1')?.data).toEqual({
      name: 'Closed',
      kind: 'tts',
      text: 'We are closed.',
      language: 'en-us',
    });
  });

  it('refuses one the contract refuses, naming the field and the reason, and sends nothing', async () => {
    const sync = fakeSync();
    const { actor, map } = await sync.openMap('guidance', {
      'gdn-1': { name: 'Old', kind: 'tts' },
    });
    const bad = { ...emptyAnnouncement(), name: 'Closed', text: 'a\u202eb' };
    const reason = { field: 'text', reason: 'Remove the control characters from the text.' };
    expect(await refusal(createAnnouncement(actor, 'gdn-2', bad))).toEqual(reason);
    expect(await refusal(updateAnnouncement(actor, 'gdn-1', { name: 'Old' }, bad))).toEqual(reason);
    expect(writes(map)).toEqual([]);
  });

  it('refuses to delete one a group plays, naming the group, and sends nothing', async () => {
    const sync = fakeSync();
    const { actor, map } = await sync.openMap('guidance', { 'gdn-1': { name: 'Closed' } });
    const groups = new Map([['grp-1', { ...desk, name: 'Sales', guidance: { closed: 'gdn-1' } }]]);
    await expect(deleteAnnouncement(actor, 'gdn-1', 'Closed', groups)).rejects.toThrow(
      'Closed is played by the ring group Sales (when closed). Choose another announcement there first.',
    );
    expect(writes(map)).toEqual([]);
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
