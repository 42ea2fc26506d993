/**
 * What the audio and announcement routes keep in Sync: the `audio` map (each uploaded file's
 * description) and the `guidance` map (announcements, which may name a file), through Sync's REST
 * API with the server's credentials (twilio/sync-rest.ts), as the `calls` history is. The files
 * themselves are on this server's disk (`<data>/audio`).
 */
import { ANNOUNCEMENTS, AUDIO } from '../../src/contracts/objects';
import type { AudioFile } from '../../src/contracts/records/audio';
import type { SyncRest } from '../twilio/sync-rest';

type Item = Readonly<Record<string, unknown>>;

export interface MediaMaps {
  /** The `audio` item of a file, or null. */
  audio(id: string): Promise<Item | null>;
  /** Describes a stored file (creates or replaces its item). */
  setAudio(id: string, item: AudioFile): Promise<void>;
  /** Nothing when it is already gone. */
  removeAudio(id: string): Promise<void>;
  /** An announcement (`guidance` item), or null. */
  announcement(id: string): Promise<Item | null>;
  /** Every announcement, by id. */
  announcements(): Promise<Map<string, Item>>;
}

/** Sync through its REST API. Every call reads Sync afresh. */
export function restMediaMaps(rest: SyncRest): MediaMaps {
  return {
    audio: async (id) => (await rest.getMapItem(AUDIO.name, id))?.data ?? null,
    setAudio: (id, item) => rest.setMapItem(AUDIO.name, id, item),
    removeAudio: (id) => rest.removeMapItem(AUDIO.name, id),
    announcement: async (id) => (await rest.getMapItem(ANNOUNCEMENTS.name, id))?.data ?? null,
    announcements: async () =>
      new Map([...(await rest.mapItems(ANNOUNCEMENTS.name))].map(([key, { data }]) => [key, data])),
  };
}
