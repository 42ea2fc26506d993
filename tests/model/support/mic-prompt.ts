/**
 * The browser's microphone prompt, as a person meets it the first time a call needs the microphone:
 * the call waits until they answer it. Headless Chromium never shows the prompt (it answers at once
 * from the context's permissions), so the test stands in for the person: `hold` makes the page's
 * next `getUserMedia` calls wait, `answer` lets them go on to the real `getUserMedia`, which then
 * gets what the context's permissions say (granted: the fake microphone; cleared: NotAllowedError,
 * as when the person clicks Block). Installed in the page before the app, by the test only.
 */
import type { BrowserContext, Page } from 'playwright-core';

export const MIC_PROMPT_SCRIPT = `(() => {
  const media = navigator.mediaDevices;
  if (!media) return;
  const real = media.getUserMedia.bind(media);
  const prompt = { holding: false, waiting: [] };
  window.__micPrompt = prompt;
  media.getUserMedia = (constraints) =>
    prompt.holding
      ? new Promise((resolve) => prompt.waiting.push(() => resolve(real(constraints))))
      : real(constraints);
})();`;

interface PromptWindow {
  __micPrompt: { holding: boolean; waiting: Array<() => void> };
}

export async function installMicPrompt(page: Page): Promise<void> {
  await page.addInitScript(MIC_PROMPT_SCRIPT);
}

/** From now on, the page's microphone requests wait for `answerMicPrompt`. */
export async function holdMicPrompt(page: Page): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as PromptWindow).__micPrompt.holding = true;
  });
}

/** Microphone requests waiting on the prompt now. */
export async function micPromptsWaiting(page: Page): Promise<number> {
  return page.evaluate(() => (window as unknown as PromptWindow).__micPrompt.waiting.length);
}

/**
 * The person answers the prompt: Allow (the context keeps its microphone permission) or Block (the
 * permission is withdrawn first, so the real getUserMedia refuses). Later requests no longer wait.
 */
export async function answerMicPrompt(
  page: Page,
  context: BrowserContext,
  answer: 'allow' | 'block',
): Promise<void> {
  if (answer === 'block') await context.clearPermissions();
  await page.evaluate(() => {
    const prompt = (window as unknown as PromptWindow).__micPrompt;
    prompt.holding = false;
    for (const go of prompt.waiting.splice(0)) go();
  });
}
