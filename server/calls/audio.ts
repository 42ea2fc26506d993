/**
 * What the embedded voice service plays to callers, from the announcements admins made: one by id,
 * the built-in voicemail greeting (for a group with none of its own), and a group's hold
 * announcement (its `hold` slot), if it has one.
 */
import type { Group } from '../../src/contracts/records/group';
import type { Announcements } from '../guidance/announcements';
import type { Speech } from '../guidance/speech';
import { VOICEMAIL_GREETING } from './voicemail';

export interface CallerAudio {
  /** An announcement's μ-law audio, or the voicemail greeting for null. */
  announcement(guidanceId: string | null): Promise<Buffer>;
  /** The group's hold announcement, or null when it has none. */
  holdAnnouncement(groupId: string): Promise<Buffer | null>;
}

export function callerAudio(deps: {
  announcements: Announcements;
  speech: Speech;
  group: (groupId: string) => Group | null;
}): CallerAudio {
  return {
    announcement: (guidanceId) =>
      guidanceId === null
        ? deps.speech.render(VOICEMAIL_GREETING, 'en-us')
        : deps.announcements.pcmu(guidanceId),
    async holdAnnouncement(groupId) {
      const id = deps.group(groupId)?.guidance.hold;
      return id ? deps.announcements.pcmu(id) : null;
    },
  };
}
