/**
 * The voice twin's recordings on disk: a message kept under a Recording SID (`<Record>`) is found
 * by a new store over the same folder, as after a restart, and removing it deletes its files.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createVoicemailStore } from '../../../../../server/twins/voice/voicemail-store';

const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-vm-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const TWO_SECONDS = Buffer.alloc(16_000, 0xff);
const meta = { callId: 'CA' + '1'.repeat(32), at: 1 };

describe('the voicemail store', () => {
  it('keeps a message under a Recording SID across a restart, until it is removed', () => {
    const dir = dataDir();
    const re = 'RE' + 'a'.repeat(32);
    expect(createVoicemailStore(dir).save(TWO_SECONDS, meta, re)).toEqual({ id: re, seconds: 2 });
    const restarted = createVoicemailStore(dir);
    const found = restarted.find(re);
    expect(found?.meta).toEqual({ ...meta, seconds: 2 });
    expect(found?.path).toBe(join(dir, 'voicemail', `${re}.wav`));
    expect(restarted.remove(re)).toBe(true);
    expect(existsSync(join(dir, 'voicemail', `${re}.wav`))).toBe(false);
    expect(existsSync(join(dir, 'voicemail', `${re}.json`))).toBe(false);
    expect(restarted.find(re)).toBeNull();
    expect(restarted.remove(re)).toBe(false);
  });

  it('keeps messages only under a Recording SID, and finds nothing by any other id', () => {
    const store = createVoicemailStore(dataDir());
    expect(() => store.save(TWO_SECONDS, meta, 'vm-0123456789abcdef')).toThrow();
    expect(() => store.save(TWO_SECONDS, meta, '../escape')).toThrow();
    expect(store.find('../escape')).toBeNull();
    expect(store.remove('../escape')).toBe(false);
  });
});
