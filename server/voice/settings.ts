type Env = Readonly<Record<string, string | undefined>>;

export interface VoiceSettings {
  ringTimeoutMs?: number;
  tokenTtlSeconds?: number;
  parkTimeoutMs?: number;
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
 * whoever parked it, default 180). Throws a readable error when invalid.
 */
export function voiceSettingsFromEnv(env: Env): VoiceSettings {
  const ring = whole(env, 'SWITCHBOARD_VOICE_RING_SECONDS', 3, 600);
  const ttl = whole(env, 'SWITCHBOARD_VOICE_TOKEN_TTL', 15, 86_400);
  const park = whole(env, 'SWITCHBOARD_VOICE_PARK_SECONDS', 5, 3600);
  return {
    ...(park === undefined ? {} : { parkTimeoutMs: park * 1000 }),
    ...(ring === undefined ? {} : { ringTimeoutMs: ring * 1000 }),
    ...(ttl === undefined ? {} : { tokenTtlSeconds: ttl }),
  };
}
