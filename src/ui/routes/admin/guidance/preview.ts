import { API } from '../../../../contracts/api';
import { ApiError, errorFrom, NETWORK_ERROR_MESSAGE } from '../../../../io/api/client';
import { pathOf } from '../../../../contracts/api-route';

export type PreviewRequest = { text: string; language: string } | { audioId: string };

/**
 * The server's rendering of an announcement not saved yet (POST /api/guidance/preview): exactly
 * the audio callers will hear. A file, not JSON, so not through the API client.
 */
export async function fetchPreview(body: PreviewRequest): Promise<Blob> {
  const route = API.preview;
  let response: Response;
  try {
    response = await fetch(pathOf(route), {
      method: route.method,
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'audio/wav' },
      body: JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'network', NETWORK_ERROR_MESSAGE);
  }
  if (!response.ok) {
    const parsed: unknown = await response.json().catch(() => undefined);
    throw errorFrom(response.status, parsed);
  }
  return response.blob();
}
