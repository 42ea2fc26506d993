/**
 * Where the browsers' SDKs reach Twilio from a page at some origin: Twilio's own endpoints, or (the
 * twins in this process) the page's own origin. Configuration, not a code path: the tokens, the
 * Device options and everything else are the same (server/app.ts chooses which).
 */

export interface BrowserEndpoints {
  /** The twilio-sync SDK's client options; `{}` keeps Twilio's own addresses. */
  sync: Record<string, unknown>;
  voice: {
    /** The Voice SDK's `chunderw` (its signalling host), when not Twilio's own. */
    chunderw?: string;
    /** The signalling URL the page's SDK loader dials (src/io/voice/sdk.ts). */
    signallingUrl: string;
    /** Whether the SDK publishes its events to Voice Insights (Twilio's only). */
    insights: boolean;
  };
}

/** Where the Voice SDK signals by default; `wss://`, so the page leaves it alone (src/io/voice/sdk.ts). */
export const TWILIO_SIGNALLING_URL = 'wss://voice-js.roaming.twilio.com/signal';

/** Twilio's own endpoints, whatever the page's origin. */
export const TWILIO_ENDPOINTS: BrowserEndpoints = {
  sync: {},
  voice: { signallingUrl: TWILIO_SIGNALLING_URL, insights: true },
};

/** What a page must reach besides its own origin on Twilio (Sync, Voice signalling, Insights). */
export const TWILIO_CONNECT_SOURCES: readonly string[] = [
  'https://*.twilio.com',
  'wss://*.twilio.com',
];
