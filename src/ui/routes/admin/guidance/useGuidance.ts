import { useEffect, useMemo, useState } from 'react';
import { ApiError, errorFrom, NETWORK_ERROR_MESSAGE } from '../../../../io/api/client';
import {
  selectMapError,
  selectMapItems,
  selectMapStatus,
} from '../../../../machines/syncMap.selectors';
import type { MapItem } from '../../../../machines/syncPorts';
import { useApiClient } from '../../../app/actors';
import { useContainerSelector, useSyncMap } from '../../../sync/containers';
import { GUIDANCE_MAP, guidanceFromData, type AudioFile, type Guidance } from './guidance';

const NO_ITEMS: readonly MapItem[] = [];

/** Every announcement, live, by id. */
export function useGuidanceMap() {
  const actor = useSyncMap(GUIDANCE_MAP, { pageSize: 100, loadAll: true });
  const status = useContainerSelector(actor, selectMapStatus, 'opening');
  const items = useContainerSelector(actor, selectMapItems, NO_ITEMS);
  const error = useContainerSelector(actor, selectMapError, null);
  const announcements = useMemo(
    () => new Map<string, Guidance>(items.map((i) => [i.key, guidanceFromData(i.data)])),
    [items],
  );
  return { actor, status, error, items, announcements };
}

/** The uploaded audio files, live, by id. */
export function useAudioFiles() {
  const actor = useSyncMap('audio', { pageSize: 100, loadAll: true });
  const status = useContainerSelector(actor, selectMapStatus, 'opening');
  const items = useContainerSelector(actor, selectMapItems, NO_ITEMS);
  const files = useMemo(
    () =>
      new Map<string, AudioFile>(
        items.map((i) => [
          i.key,
          {
            name: typeof i.data.name === 'string' ? i.data.name : i.key,
            kind: typeof i.data.kind === 'string' ? i.data.kind : 'unknown',
          },
        ]),
      ),
    [items],
  );
  return { status, files };
}

export interface Language {
  code: string;
  name: string;
}

/** The languages the server's text to speech has a voice for (GET /api/guidance/languages). */
export function useLanguages() {
  const api = useApiClient();
  const [languages, setLanguages] = useState<Language[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    api.request('GET', '/api/guidance/languages').then(
      (body) => {
        const list = (body as { languages?: unknown }).languages;
        if (live && Array.isArray(list)) {
          setLanguages(
            list.filter(
              (l): l is Language =>
                typeof (l as Language).code === 'string' &&
                typeof (l as Language).name === 'string',
            ),
          );
        }
      },
      (e: unknown) => {
        if (live) setError(e instanceof Error ? e.message : String(e));
      },
    );
    return () => {
      live = false;
    };
  }, [api, attempt]);
  return {
    languages,
    error,
    retry: () => {
      setError(null);
      setAttempt((n) => n + 1);
    },
  };
}

/**
 * The server's rendering of an announcement not saved yet (POST /api/guidance/preview), as an
 * object URL for an audio element: exactly the audio callers will hear.
 */
export async function fetchPreview(
  body: { text: string; language: string } | { audioId: string },
): Promise<Blob> {
  let response: Response;
  try {
    response = await fetch('/api/guidance/preview', {
      method: 'POST',
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
