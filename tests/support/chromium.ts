import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * The features Playwright turns off itself (its `--disable-features`; Chromium reads the last such
 * switch only, and ours comes after Playwright's), and the omnibox popup: Chromium 156 opens two
 * WebUI pages of it (`chrome://omnibox-popup.top-chrome/`) for every window, that is for every
 * context a test opens, each in a renderer process of its own. Measured on one signed-in app page
 * (tests' `phonePerson`, quiet machine): 6–7 CPU seconds and 3.2–3.8 s with them, 3.6–4.4 CPU
 * seconds and 2.0–2.4 s without.
 */
const DISABLED_FEATURES = [
  // Playwright's own list (playwright-core's chromiumSwitches), kept as it is: foundation's suite
  // reads the launched browser's command line and fails when Playwright's list has one we lack.
  'AimEnabled',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsFirstBalancedModeAutoEnable',
  'HttpsUpgrades',
  'LensOverlay',
  'MediaRouter',
  'NetworkTimeServiceQuerying',
  'OptimizationHints',
  'PaintHolding',
  'PreconnectToSearch',
  'TcpPortRandomizationWin',
  'ThirdPartyStoragePartitioning',
  'msEdgeUpdateLaunchServicesPreferredVersion',
  'msForceBrowserSignIn',
  // The browser window's omnibox popup, which a headless test never opens.
  'WebUIOmniboxPopup',
  'WebUIOmniboxAimPopup',
  'WebUIOmniboxFullPopup',
];

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--use-fake-ui-for-media-stream',
  '--use-fake-device-for-media-stream',
  `--disable-features=${DISABLED_FEATURES.join(',')}`,
];

/** Debian's Chromium through playwright-core (scripts/ensure-chromium.sh installs it). */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: run scripts/ensure-chromium.sh`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS, ...extraArgs],
    headless: true,
  });
}
