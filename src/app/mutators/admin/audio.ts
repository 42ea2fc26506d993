/**
 * Audio files are written through the API, so the file and its `audio` item go together: uploads
 * are `POST /api/audio` (src/ui/routes/admin/audio/upload.ts, with progress), deletes are here.
 */
import { API } from '../../../contracts/api';
import type { ApiClient } from '../../../io/api/client';

/** Deletes an audio file and its item (`DELETE /api/audio/:id`); rejects with the server's words. */
export async function deleteAudio(api: ApiClient, id: string): Promise<void> {
  await api.call(API.deleteAudio, { id });
}
