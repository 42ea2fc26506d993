/**
 * The person's audio choices on the phone: the microphone, speaker and ringtone device they chose
 * and the ringtone's volume, put on the SDK Device of the moment (again on each new Device, and the
 * volume once a call is over), the devices the browser lists, and a test tone.
 */
import type { VoiceSdkModule } from './sdk';

type SdkDevice = InstanceType<VoiceSdkModule['Device']>;

/** The person's audio choices (from their settings document); null ids mean the browser's default. */
export interface AudioPreferences {
  microphoneId: string | null;
  speakerId: string | null;
  ringtoneId: string | null;
  /** Ringtone volume, 0..100 percent of the ringtone's own level. */
  ringtoneVolume: number;
}

export interface AudioDevice {
  id: string;
  label: string;
}

export interface AudioControls {
  /**
   * Applies the choices to this tab's phone (now, or once it starts). Resolves with a sentence for
   * each choice that could not be applied (a device that is gone), empty when all took.
   */
  apply(prefs: AudioPreferences): Promise<string[]>;
  /** Microphones and speakers the browser lists; `outputSelection` false where speakers cannot be chosen. */
  devices(): Promise<{ inputs: AudioDevice[]; outputs: AudioDevice[]; outputSelection: boolean }>;
  /** Plays a short tone on a speaker (the default one when null) at the given volume (0..100). */
  test(speakerId: string | null, volume: number): Promise<void>;
}

/** The URL of one of the server's SDK sounds at a volume (0..100). */
export function soundAt(url: string, volume: number): string {
  const level = Math.max(0, Math.min(100, Math.round(volume)));
  const u = new URL(url);
  u.searchParams.set('level', String(level));
  return u.toString();
}

/** The phone's audio, over whatever SDK Device and sounds `current` gives now. */
export function createAudio(
  current: () => { device: SdkDevice | null; sounds: Record<string, string> | undefined },
) {
  /** The person's audio choices, and the ringtone volume the current SDK Device plays at. */
  let prefs: AudioPreferences | null = null;
  let appliedVolume: number | null = null;

  /** Puts the person's audio choices on the SDK Device; what could not be applied, in sentences. */
  async function applyToSdk(): Promise<string[]> {
    const { device, sounds } = current();
    if (!device || !prefs || !sounds) return [];
    const problems: string[] = [];
    if (prefs.ringtoneVolume !== appliedVolume && !device.isBusy && sounds.incoming) {
      device.updateOptions({
        sounds: { ...sounds, incoming: soundAt(sounds.incoming, prefs.ringtoneVolume) },
      });
      appliedVolume = prefs.ringtoneVolume;
    }
    const audio = device.audio;
    if (!audio) return problems;
    // Only a device the person chose can be "not available": going back to the browser's default
    // may fail while the SDK is still listing devices (a Device just created), and then the
    // default is what plays anyway.
    if (prefs.microphoneId) {
      await audio.setInputDevice(prefs.microphoneId).catch(() => {
        problems.push('The chosen microphone is not available; the default one is used.');
      });
    } else await audio.unsetInputDevice().catch(() => undefined);
    if (audio.isOutputSelectionSupported) {
      for (const [collection, id, what] of [
        [audio.speakerDevices, prefs.speakerId, 'speaker'],
        [audio.ringtoneDevices, prefs.ringtoneId, 'ringtone device'],
      ] as const) {
        if (id !== null) {
          const chosen = await collection.set(id).then(
            () => true,
            () => false,
          );
          if (chosen) continue;
          problems.push(`The chosen ${what} is not available; the default one is used.`);
        }
        await collection.set('default').catch(() => undefined);
      }
    }
    return problems;
  }

  const controls: AudioControls = {
    apply(next) {
      prefs = next;
      return applyToSdk();
    },
    async devices() {
      const all = await navigator.mediaDevices.enumerateDevices();
      const list = (kind: MediaDeviceKind) =>
        all
          .filter((d) => d.kind === kind && d.deviceId !== '' && d.deviceId !== 'default')
          .map((d, i) => ({ id: d.deviceId, label: d.label || `Device ${i + 1}` }));
      return {
        inputs: list('audioinput'),
        outputs: list('audiooutput'),
        outputSelection: 'setSinkId' in HTMLMediaElement.prototype,
      };
    },
    async test(speakerId, volume) {
      // The ringtone's first ring (two seconds), at the chosen volume.
      const base = current().sounds?.incoming;
      if (!base) throw new Error('The phone has not started yet.');
      const player = new Audio(soundAt(base, volume));
      if (speakerId)
        await (player as HTMLAudioElement & { setSinkId(id: string): Promise<void> }).setSinkId(
          speakerId,
        );
      await player.play();
      setTimeout(() => player.pause(), 2000);
    },
  };

  return {
    controls,
    applyToSdk,
    /** A new SDK Device starts with the default sounds. */
    deviceReplaced() {
      appliedVolume = null;
    },
    /** A ringtone volume chosen during the call is applied once the phone is idle again. */
    callEnded() {
      if (prefs && appliedVolume !== prefs.ringtoneVolume) void applyToSdk();
    },
  };
}
