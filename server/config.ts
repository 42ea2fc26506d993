/**
 * The app's configuration, read from the environment once at start (docs/operations.md lists every
 * variable): the HTTP server's own (platform), sign-in (identity), call audio ports (voice), the
 * Twilio account the app runs on and whether Twilio's twins run in this process. The app's code is
 * the same whatever SWITCHBOARD_BACKEND says; only these values differ (docs/architecture.md,
 * "Backends"). Throws a readable error when a value is invalid.
 */
import { nonEmpty, serverConfigFromEnv, type Env, type ServerConfig } from './platform/config';
import { signInConfigFromEnv, type SignInConfig } from './identity/config';
import { twilioConfigFromEnv, type TwilioConfig } from './twilio/config';
import { rtpPortsFromEnv } from './calls/settings';
import { twinEnvironment, twinFolder, TWIN_PHONE_NUMBER } from './twins/account';

/**
 * SWITCHBOARD_BACKEND: `embedded` (the default: the twins in this process, no phone network),
 * `twilio-twins` (the same, with a made-up number and data of its own: a Twilio setup rehearsed) or
 * `twilio` (Twilio's own Sync and Voice).
 */
export type Backend = 'embedded' | 'twilio-twins' | 'twilio';
const BACKENDS: readonly Backend[] = ['embedded', 'twilio-twins', 'twilio'];

export interface AppConfig extends ServerConfig, SignInConfig {
  /** VOICE_RTP_PORTS: the UDP ports call audio may use ("min-max"); any free port when null. */
  voiceRtpPorts: [number, number] | null;
  backend: Backend;
  /** The account the app runs on: Twilio's, or the twins' made-up one (server/twins/account.ts). */
  twilio: TwilioConfig;
  /**
   * Twilio's twins, running in this process on this server's port (embedded, twilio-twins), with
   * where they keep their data; null on Twilio, or when they run in a process of their own.
   */
  twins: { dataDir: string } | null;
  /**
   * Twilio's twins in a process of their own (`npm run twins`, server/twins-main.ts), reached over
   * the network at this REST address as Twilio would be (`twilio-twins` with
   * SWITCHBOARD_TWILIO_API_URL); null otherwise.
   */
  twinsAt: string | null;
}

export function configFromEnv(env: Env, cwd = process.cwd()): AppConfig {
  const server = serverConfigFromEnv(env, cwd);
  const raw = (nonEmpty(env.SWITCHBOARD_BACKEND) ?? 'embedded').toLowerCase();
  const backend = BACKENDS.find((b) => b === raw);
  if (!backend)
    throw new Error(
      `SWITCHBOARD_BACKEND must be "embedded" (the default), "twilio-twins" or "twilio", got ${JSON.stringify(raw)}`,
    );
  // On the internet, people sign in with Google: a local sign-in proves only that someone can reach
  // this machine. On the twins it is offered (trying Switchboard, rehearsing a Twilio setup).
  const signIn = signInConfigFromEnv(env, cwd, { googleOnly: backend === 'twilio' });
  // The embedded backend's twins keep their data in the data folder itself (SWITCHBOARD_DATA, where
  // it has always been); the rehearsal's are in a folder of their own (twins/account.ts).
  // On `twilio-twins`, SWITCHBOARD_TWILIO_API_URL says where the twins run in a process of their
  // own (`npm run twins`): this server reaches them there, REST and browsers alike, as it would
  // reach Twilio, and their made-up account's secrets come from the environment, as they printed.
  const twinsAt = backend === 'twilio-twins' ? nonEmpty(env.SWITCHBOARD_TWILIO_API_URL) : null;
  const twins =
    backend === 'twilio' || twinsAt !== null
      ? null
      : { dataDir: backend === 'embedded' ? server.dataDir : twinFolder(server.dataDir) };
  const account =
    backend === 'twilio'
      ? env
      : twinEnvironment(
          env,
          twins?.dataDir ?? null,
          backend === 'embedded' ? [] : [TWIN_PHONE_NUMBER],
        );
  const problems: string[] = [];
  let twilio: TwilioConfig | null = null;
  try {
    twilio = twilioConfigFromEnv(account, {
      label: `SWITCHBOARD_BACKEND=${backend}`,
      onTwins: backend !== 'twilio',
      noNumbers: backend === 'embedded',
    });
  } catch (err) {
    // Its own list of problems, joined to the sign-in's below so that all are said at once.
    const lines = (err instanceof Error ? err.message : String(err)).split('\n  - ');
    problems.push(...(lines.length > 1 ? lines.slice(1) : lines));
  }
  if (signIn.googleOnly) {
    if (signIn.google.clientId === null)
      problems.push(
        'GOOGLE_CLIENT_ID is not set: on Twilio people sign in with Google only (docs/operations.md, "Running on Twilio")',
      );
    if (signIn.passcode !== null)
      problems.push(
        'SWITCHBOARD_PASSCODE has no use on Twilio, where people sign in with Google only: unset it',
      );
  }
  if (problems.length > 0 || twilio === null)
    throw new Error(`SWITCHBOARD_BACKEND=${backend} cannot start:\n  - ${problems.join('\n  - ')}`);
  // Twilio reaches the webhooks at the public URL: its name is one this server answers to (on the
  // twins, unless set, the server's own address).
  if (twilio.publicUrl) server.publicHosts.push(new URL(twilio.publicUrl).hostname.toLowerCase());
  return {
    ...server,
    ...signIn,
    voiceRtpPorts: rtpPortsFromEnv(nonEmpty(env.VOICE_RTP_PORTS)),
    backend,
    twilio,
    twins,
    twinsAt: twinsAt === null ? null : twilio.apiBaseUrl,
  };
}
