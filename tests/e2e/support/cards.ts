/** The phone panel's call cards as the browser suites drive them. */
import { e2eBackend } from '../../support/server';
import type { Person } from './live';

/** A person's call card in `status` (incoming, open, ended…). */
export const card = (p: Person, status: string) =>
  p.page.locator(`[data-testid="call-card"][data-status="${status}"]`);

/** Dismisses every ended call card on the person's panel. */
export async function dismissAll(p: Person): Promise<void> {
  const dismiss = p.page.getByRole('button', { name: 'Dismiss' });
  while ((await dismiss.count()) > 0) await dismiss.first().click();
}

/** The person hangs up their call and sees it ended. */
export async function hangUp(p: Person): Promise<void> {
  await p.page.getByRole('button', { name: 'Hang up' }).click();
  await p.page.getByTestId('call-ended').first().waitFor();
}

/**
 * What the ended card says after a call to a phone number (E.164): the embedded backend has no
 * phone provider and names the number it was asked; Twilio mode dials it (`<Dial><Number>` from the
 * team's number), and the twins have no phone network, so the dial ends `failed` there.
 */
export const numberCallEnd = (e164: string): string =>
  e2eBackend() === 'embedded'
    ? `${e164} is a phone number`
    : `The call to ${e164} could not be connected.`;
