import { describe, expect, it } from 'vitest';
import { isValidRouteId } from '../../../../../src/ui/app/paths';
import {
  announcementToData,
  emptyAnnouncement,
  groupsUsing,
  newAnnouncementId,
  validateAnnouncement,
  type AudioChoice,
} from '../../../../../src/domain/announcement';
import {
  announcementRecord,
  type Announcement,
} from '../../../../../src/contracts/records/announcement';
import type { Group } from '../../../../../src/contracts/records/group';
import { emptyGroup } from '../../../../../src/contracts/records/group';

const languages = new Set(['en-us', 'de']);
const audio = new Map<string, AudioChoice>([
  ['aud-1', { name: 'Hold music.wav', kind: 'wav' }],
  ['aud-2', { name: 'Song.mp3', kind: 'mp3' }],
]);
const text: Announcement = { ...emptyAnnouncement(), name: 'Closed', text: 'We are closed.' };
const file: Announcement = {
  ...emptyAnnouncement(),
  name: 'Hold',
  kind: 'audio',
  audioId: 'aud-1',
};

describe('announcement validation', () => {
  it('accepts a complete text announcement and a complete file announcement', () => {
    expect(validateAnnouncement(text, languages, audio)).toEqual({});
    expect(validateAnnouncement(file, languages, audio)).toEqual({});
  });

  it('asks for a name of at most 80 characters', () => {
    expect(validateAnnouncement({ ...text, name: '  ' }, languages, audio).name).toBe(
      'Enter a name for the announcement.',
    );
    expect(validateAnnouncement({ ...text, name: 'x'.repeat(81) }, languages, audio).name).toBe(
      'Use at most 80 characters.',
    );
    expect(validateAnnouncement({ ...text, name: 'a\u0007b' }, languages, audio).name).toBe(
      'Use letters, digits and punctuation.',
    );
  });

  it('asks for text of at most 1000 characters, without control characters', () => {
    expect(validateAnnouncement({ ...text, text: ' \n ' }, languages, audio).text).toBe(
      'Enter what callers will hear.',
    );
    expect(validateAnnouncement({ ...text, text: 'x'.repeat(1000) }, languages, audio)).toEqual({});
    expect(validateAnnouncement({ ...text, text: 'x'.repeat(1001) }, languages, audio).text).toBe(
      'Use at most 1000 characters (this is 1001).',
    );
    expect(validateAnnouncement({ ...text, text: 'a\u202eb' }, languages, audio).text).toBe(
      'Remove the control characters from the text.',
    );
  });

  it('refuses a language with no voice (and does not judge while the list is unknown)', () => {
    expect(validateAnnouncement({ ...text, language: 'xx' }, languages, audio).language).toBe(
      'There is no voice for xx; choose another language.',
    );
    expect(validateAnnouncement({ ...text, language: '' }, languages, audio).language).toBe(
      'Choose a language.',
    );
    expect(validateAnnouncement({ ...text, language: 'xx' }, null, audio)).toEqual({});
  });

  it('refuses a missing, deleted or unplayable audio file', () => {
    expect(validateAnnouncement({ ...file, audioId: '' }, languages, audio).audioId).toBe(
      'Choose an audio file.',
    );
    expect(validateAnnouncement({ ...file, audioId: 'aud-9' }, languages, audio).audioId).toBe(
      'This audio file was deleted; choose another.',
    );
    expect(validateAnnouncement({ ...file, audioId: 'aud-2' }, languages, audio).audioId).toBe(
      'Song.mp3 is MP3; only WAV files can be played to callers for now.',
    );
  });

  it('stores only the fields of its kind, and reads stored items defensively', () => {
    expect(announcementToData({ ...text, name: ' Closed ', audioId: 'aud-1' })).toEqual({
      name: 'Closed',
      kind: 'tts',
      text: 'We are closed.',
      language: 'en-us',
    });
    expect(announcementToData({ ...file, text: 'left over' })).toEqual({
      name: 'Hold',
      kind: 'audio',
      audioId: 'aud-1',
    });
    expect(announcementRecord.read({ name: 3, kind: 'video', text: ['x'] })).toEqual(
      emptyAnnouncement(),
    );
    expect(announcementRecord.read(announcementToData(file))).toEqual({ ...file, text: '' });
  });

  it('names the groups that play an announcement, and where', () => {
    const groups = new Map<string, Group>([
      ['g1', { ...emptyGroup(), name: 'Sales', guidance: { closed: 'gdn-1', holiday: 'gdn-1' } }],
      ['g2', { ...emptyGroup(), name: 'Desk', guidance: { hold: 'gdn-1' } }],
      ['g3', { ...emptyGroup(), name: 'Other', guidance: { open: 'gdn-2' } }],
    ]);
    expect(groupsUsing('gdn-1', groups)).toEqual([
      'Desk (on hold)',
      'Sales (when closed, on a holiday)',
    ]);
    expect(groupsUsing('gdn-3', groups)).toEqual([]);
  });

  it('makes ids that are valid in a route', () => {
    for (let i = 0; i < 50; i++) expect(isValidRouteId(newAnnouncementId())).toBe(true);
  });
});
