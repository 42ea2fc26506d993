type Env = Readonly<Record<string, string | undefined>>;

export interface VoiceSettings {
  ringTimeoutMs?: number;
  tokenTtlSeconds?: number;
  parkTimeoutMs?: number;
  /** The longest voicemail message. */
  voicemailMaxMs?: number;
  /** How long call history rows (and their voicemail messages) are kept, in days. */
  historyDays?: number;
}

function whole(env: Env, name: string, min: number, max: number): number | undefined {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (!/^[0-9]{1,6}$/.test(raw) || Number(raw) < min || Number(raw) > max)
    throw new Error(
      `${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`,
    );
  return Number(raw);
}

/**
 * SWITCHBOARD_VOICE_RING_SECONDS (how long a call rings before it is missed, default 30) and
 * SWITCHBOARD_VOICE_TOKEN_TTL (seconds a voice token lives, default 3600; the SDK renews it 10 s
 * before it ends) and SWITCHBOARD_VOICE_PARK_SECONDS (how long a call stays parked before it rings
 * whoever parked it, default 180), SWITCHBOARD_VOICEMAIL_SECONDS (the longest voicemail message,
 * default 120) and SWITCHBOARD_HISTORY_DAYS (how long call history and voicemail are kept, default
 * 365). Throws a readable error when invalid.
 */
export function voiceSettingsFromEnv(env: Env): VoiceSettings {
  const ring = whole(env, 'SWITCHBOARD_VOICE_RING_SECONDS', 3, 600);
  const ttl = whole(env, 'SWITCHBOARD_VOICE_TOKEN_TTL', 15, 86_400);
  const park = whole(env, 'SWITCHBOARD_VOICE_PARK_SECONDS', 5, 3600);
  const voicemail = whole(env, 'SWITCHBOARD_VOICEMAIL_SECONDS', 5, 600);
  // A year at most: a history row's ttl, as Sync allows (31 536 000 s).
  const days = whole(env, 'SWITCHBOARD_HISTORY_DAYS', 1, 365);
  return {
    ...(voicemail === undefined ? {} : { voicemailMaxMs: voicemail * 1000 }),
    ...(days === undefined ? {} : { historyDays: days }),
    ...(park === undefined ? {} : { parkTimeoutMs: park * 1000 }),
    ...(ring === undefined ? {} : { ringTimeoutMs: ring * 1000 }),
    ...(ttl === undefined ? {} : { tokenTtlSeconds: ttl }),
  };
}

/** VOICE_RTP_PORTS="10000-10199": inclusive, at least two ports (each call uses one per leg); null when unset. */
export function rtpPortsFromEnv(value: string | null): [number, number] | null {
  if (value === null) return null;
  const match = /^(\d{1,5})\s*-\s*(\d{1,5})$/.exec(value);
  const min = Number(match?.[1]);
  const max = Number(match?.[2]);
  if (!match || min < 1024 || max > 65535 || max <= min) {
    throw new Error(
      `VOICE_RTP_PORTS must be a UDP port range like 10000-10199 (from 1024 to 65535, at least two ports), got ${JSON.stringify(value)}`,
    );
  }
  return [min, max];
}
