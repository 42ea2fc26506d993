// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { loadGoogleIdentity, resetGoogleIdentityLoader } from '../../../../src/io/google/google';
import type { GisNamespace } from '../../../../src/io/google/gis';

afterEach(() => {
  resetGoogleIdentityLoader();
  delete window.google;
  document.head.innerHTML = '';
});

const scripts = (): HTMLScriptElement[] => [...document.head.querySelectorAll('script')];

describe('loadGoogleIdentity', () => {
  it('adds the script once and resolves window.google when it loads', async () => {
    const first = loadGoogleIdentity('/gsi/client');
    const second = loadGoogleIdentity('/gsi/client');
    expect(second).toBe(first);
    expect(scripts()).toHaveLength(1);
    expect(scripts()[0]?.getAttribute('src')).toBe('/gsi/client');
    const fake = { accounts: {} } as unknown as GisNamespace;
    window.google = fake;
    scripts()[0]?.dispatchEvent(new Event('load'));
    await expect(first).resolves.toBe(fake);
  });

  it('fails with the seed message when the script cannot load, and can try again', async () => {
    const attempt = loadGoogleIdentity('/gsi/client');
    scripts()[0]?.dispatchEvent(new Event('error'));
    await expect(attempt).rejects.toThrow(
      'Failed to load the Google 3P Authorization JavaScript Library.',
    );
    expect(scripts()).toHaveLength(0);
    void loadGoogleIdentity('/gsi/client').catch(() => undefined);
    expect(scripts()).toHaveLength(1);
  });

  it('fails with the seed message when the script loads but defines nothing', async () => {
    const attempt = loadGoogleIdentity('/gsi/client');
    scripts()[0]?.dispatchEvent(new Event('load'));
    await expect(attempt).rejects.toThrow(
      'Failed to load the Google 3P Authorization JavaScript Library.',
    );
  });
});
