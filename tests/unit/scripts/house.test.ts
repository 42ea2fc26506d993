/**
 * The house measure (scripts/house.ts, `npm run house`): it finds what it should in a small made-up
 * checkout, and this checkout has no import between a twin and the app and no import circle.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { measureHouse } from '../../../scripts/house';

const root = join(import.meta.dirname, '../../..');

describe('the house measure on a made-up checkout', () => {
  const dir = mkdtempSync(join(tmpdir(), 'house-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write('server/app.ts', "import { twins } from './twins';\nconst on = config.twins ? 1 : 0;\n");
  write('server/twins/index.ts', "export { leg } from './voice/leg';\n");
  write(
    'server/twins/voice/leg.ts',
    "import { plan } from '../../calls/plan';\nexport const leg = 1;\n",
  );
  write(
    'server/calls/plan.ts',
    "import type { Leg } from '../twins/voice/leg';\nexport const plan = () => import('./dial');\n// config.backend in a comment is not counted\n",
  );
  write(
    'server/calls/dial.ts',
    "export { plan } from './plan';\nif (config.backend === 'twilio') {}\n",
  );
  write(
    'server/config.ts',
    "const b = { backend: config.backend };\nconst d = config.twins\n  ? 'here'\n  : null;\n",
  );
  write('server/twilio/config.ts', "const m = backend.kind === 'x';\n");
  write(
    'server/config.ts',
    'const b = { backend: config.backend };\nconst d = config.twins\n  ? config.twins.dataDir\n  : null;\n',
  );
  write('server/twilio/config.ts', "const m = backend === 'x';\n");
  write('src/a.ts', "import { b } from './b';\n");
  write('src/b.tsx', "import type { A } from './a';\n");
  const house = measureHouse(dir);

  it('finds the imports each way between a twin and the app', () => {
    expect(house.crossings.twinsToApp).toEqual([
      { from: 'server/twins/voice/leg.ts', to: 'server/calls/plan.ts' },
    ]);
    expect(house.crossings.appToTwins).toEqual([
      { from: 'server/calls/plan.ts', to: 'server/twins/voice/leg.ts' },
    ]);
  });

  it('finds circles through type imports, re-exports and import()', () => {
    expect(house.circles.server).toEqual([
      ['server/calls/dial.ts', 'server/calls/plan.ts', 'server/twins/voice/leg.ts'],
    ]);
    expect(house.circles.src).toEqual([['src/a.ts', 'src/b.tsx']]);
  });

  it('counts backend conditionals in code, not in comments or plain reads, by place', () => {
    expect(house.conditionals).toEqual({
      app: ['server/app.ts:2: const on = config.twins ? 1 : 0;'],
      config: [
        'server/config.ts:2: const d = config.twins',
        "server/twilio/config.ts:1: const m = backend === 'x';",
      ],
      features: ["server/calls/dial.ts:2: if (config.backend === 'twilio') {}"],
    });
  });
});

describe('this checkout', () => {
  const house = measureHouse(root);

  it('reads the whole server and src/', () => {
    expect(house.edges.length).toBeGreaterThan(1000);
    expect(house.edges).toContainEqual({ from: 'server/app.ts', to: 'server/twins/index.ts' });
  });

  it('has no import between a twin and the app', () => {
    expect(house.crossings).toEqual({ twinsToApp: [], appToTwins: [] });
  });

  it('has no import circle in server/ or src/', () => {
    expect(house.circles).toEqual({ server: [], src: [] });
  });
});
