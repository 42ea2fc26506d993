/**
 * The platform is the server's framework: what it imports stays in server/platform/, the contracts
 * (src/contracts) and packages; never a feature folder of the server, nor the rest of src/.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../../..');
const platform = join(root, 'server/platform');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : name.endsWith('.ts') ? [path] : [];
  });
}

describe('server/platform', () => {
  it('imports no feature of the server and nothing of src/ but the contracts', () => {
    const outside: string[] = [];
    for (const file of files(platform)) {
      const text = readFileSync(file, 'utf8');
      for (const [, spec] of text.matchAll(/from '(\.[^']+)'/g)) {
        const target = relative(root, resolve(dirname(file), spec!));
        if (!target.startsWith('server/platform/') && !target.startsWith('src/contracts/'))
          outside.push(`${relative(root, file)} imports ${spec!}`);
      }
    }
    expect(outside).toEqual([]);
  });
});
