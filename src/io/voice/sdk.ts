/**
 * The only module that imports `@twilio/voice-sdk`, dynamically: its chunk loads once a signed-in
 * screen starts the phone, never on /login.
 *
 * The SDK always dials `wss://<chunderw>/signal`, and keeps a reference to `WebSocket` when its module
 * is first evaluated. On plain http (a local `npm start`, no certificate) the server speaks `ws://`, so
 * while the module loads `WebSocket` is a subclass that swaps exactly that one URL; everything else,
 * and every later WebSocket in the page, is untouched.
 */
import type * as VoiceSdk from '@twilio/voice-sdk';

export type VoiceSdkModule = typeof VoiceSdk;

let loaded: Promise<VoiceSdkModule> | null = null;

/** The wss:// URL the SDK will dial for a signalling URL the server named, or null when none is needed. */
export function sdkDialledUrl(signallingUrl: string): string | null {
  return signallingUrl.startsWith('ws://') ? `wss://${signallingUrl.slice('ws://'.length)}` : null;
}

/** Loads the SDK once; `signallingUrl` is `/api/voice/token`'s `signalling.url`. */
export function loadVoiceSdk(signallingUrl: string): Promise<VoiceSdkModule> {
  loaded ??= (async () => {
    const dialled = sdkDialledUrl(signallingUrl);
    const Native = globalThis.WebSocket;
    if (dialled !== null) {
      globalThis.WebSocket = class LocalSignalSocket extends Native {
        constructor(url: string | URL, protocols?: string | string[]) {
          super(String(url) === dialled ? signallingUrl : url, protocols);
        }
      };
    }
    try {
      return await import('@twilio/voice-sdk');
    } finally {
      globalThis.WebSocket = Native;
    }
  })();
  loaded.catch(() => {
    loaded = null;
  });
  return loaded;
}
