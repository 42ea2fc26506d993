/**
 * The lint rules that hold the layers apart (eslint.config.js), run by ESLint itself on small
 * sources placed in each zone: each rule fails what it should, and a clean source passes.
 */
import { join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');

// The project's own config; type information is not needed for these rules, so it is left out
// (the sources below are not files of the project).
const eslint = new ESLint({
  cwd: root,
  overrideConfig: [
    tseslint.configs.disableTypeChecked,
    { languageOptions: { parserOptions: { projectService: false, project: null } } },
  ],
});

const ZONE_RULES = new Set([
  'no-restricted-imports',
  'no-restricted-syntax',
  'no-restricted-globals',
  'switchboard/server-zones',
]);

/** The zone rules' messages for `code` as the file `path` (relative to the repository). */
async function findings(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, path) });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId !== null && ZONE_RULES.has(m.ruleId))
    .map((m) => m.message);
}

describe('import zones: contracts <- domain <- machines <- io <- app <- ui', () => {
  it.each([
    ['src/contracts/x.ts', "import { a } from '../machines/syncPorts';"],
    ['src/contracts/records/x.ts', "import { a } from '../../domain/hours';"],
    ['src/domain/x.ts', "import type { JsonObject } from '../machines/syncPorts';"],
    ['src/domain/routing/x.ts', "import { a } from '../../io/api/client';"],
    ['src/machines/x.ts', "import { a } from '../io/sync/client';"],
    ['src/machines/x.ts', "import { a } from '../app/workspace';"],
    ['src/io/sync/x.ts', "import { a } from '../../app/containers';"],
    ['src/io/x.ts', "import { a } from '../ui/app/actors';"],
    ['src/app/x.ts', "import { a } from '../ui/sync/useSyncContainers';"],
    ['src/ui/x.ts', "import { a } from '../../server/app';"],
    ['src/main.tsx', "import { a } from '../server/app';"],
  ])('%s may not: %s', async (path, code) => {
    expect(await findings(path, code)).toHaveLength(1);
  });

  it.each([
    ['src/contracts/x.ts', "import { r } from './record';\nimport * as v from 'valibot';"],
    ['src/domain/x.ts', "import { groupRecord } from '../contracts/records/group';"],
    [
      'src/machines/x.ts',
      "import { a } from '../contracts/sync-errors';\nimport { b } from './syncPorts';",
    ],
    [
      'src/io/x.ts',
      "import { a } from '../machines/syncPorts';\nimport { b } from '../contracts/api';",
    ],
    [
      'src/app/x.ts',
      "import { a } from '../io/api/client';\nimport { b } from '../machines/session.machine';",
    ],
    [
      'src/ui/x.tsx',
      "import { a } from '../app/workspace';\nimport { b } from '../machines/syncMap.selectors';",
    ],
  ])('%s may import below it: %s', async (path, code) => {
    expect(await findings(path, code)).toEqual([]);
  });

  it('keeps machines pure: no SDK, no fetch, no clock', async () => {
    expect(
      await findings('src/machines/x.ts', "import { SyncClient } from 'twilio-sync';"),
    ).toHaveLength(1);
    expect(await findings('src/machines/x.ts', 'export const t = () => Date.now();')).toHaveLength(
      1,
    );
    expect(
      await findings('src/machines/x.ts', "export const f = () => fetch('/api');"),
    ).toHaveLength(1);
  });
});

describe('src/ui and the SDKs', () => {
  it('refuses an SDK imported statically, or loaded lazily', async () => {
    expect(
      await findings('src/ui/x.tsx', "import { SyncClient } from 'twilio-sync';"),
    ).toHaveLength(1);
    expect(
      await findings('src/ui/x.tsx', "export const load = () => import('@twilio/voice-sdk');"),
    ).toHaveLength(1);
    expect(
      await findings('src/ui/x.tsx', "export const load = () => import('twilio-sync');"),
    ).toHaveLength(1);
  });

  it('refuses the SDK client handed out by the runtime', async () => {
    const code = `export const open = async (runtime: { sdkClient(): Promise<unknown> }) =>
  runtime.sdkClient();`;
    expect(await findings('src/ui/x.tsx', code)).toEqual([
      'src/ui uses no SDK object: write through a named mutator (src/app/mutators/).',
    ]);
  });

  it('refuses the SDK adapters as values, and lets their types through', async () => {
    expect(
      await findings(
        'src/ui/routes/x/x.tsx',
        "import { openWithSdk } from '../../../io/sync/client';",
      ),
    ).toHaveLength(1);
    expect(
      await findings(
        'src/ui/routes/x/x.tsx',
        "import type { SyncRuntime } from '../../../io/sync/client';",
      ),
    ).toEqual([]);
  });

  it('lets src/io and src/app use the SDKs as they should', async () => {
    expect(await findings('src/io/sync/x.ts', "import { SyncClient } from 'twilio-sync';")).toEqual(
      [],
    );
    expect(
      await findings('src/app/x.ts', "import { SyncClient } from 'twilio-sync';"),
    ).toHaveLength(1);
  });
});

describe('actors and writes in src/ui', () => {
  const effect = (body: string) => `
import { useEffect, useLayoutEffect } from 'react';
import { createActor } from 'xstate';
import { machine } from '../machines/x';
export function useThing(ready: boolean) {
  useEffect(() => {
    if (!ready) return;
    ${body}
  }, [ready]);
}`;

  it('refuses an actor created in a React effect', async () => {
    expect(await findings('src/ui/x.tsx', effect('const a = createActor(machine);'))).toContain(
      'Long-lived actors are created in src/app (the page or the workspace), not in a React effect.',
    );
  });

  it('refuses an actor started in a React effect (useLayoutEffect, React.useEffect too)', async () => {
    expect(await findings('src/ui/x.tsx', effect('actor.start();'))).toHaveLength(1);
    const layout = `import { useLayoutEffect } from 'react';
export function useThing(actor: { start(): void }) { useLayoutEffect(() => { actor.start(); }, [actor]); }`;
    expect(await findings('src/ui/x.tsx', layout)).toHaveLength(1);
    const member = `import React from 'react';
import { createActor } from 'xstate';
export function useThing() { React.useEffect(() => { createActor({} as never); }, []); }`;
    expect(await findings('src/ui/x.tsx', member)).toHaveLength(1);
  });

  it('refuses a write command sent from a view, and ask() around the mutators', async () => {
    const send = `export const save = (doc: { send(e: object): void }) =>
  doc.send({ type: 'document.update', data: { doNotDisturb: true } });`;
    expect(await findings('src/ui/x.tsx', send)).toEqual([
      'Write through a named mutator (src/app/mutators/<feature>.ts), not a command sent from a view.',
    ]);
    expect(
      await findings('src/ui/x.tsx', "import { ask } from '../machines/syncCommand';"),
    ).toHaveLength(1);
  });

  it('passes a clean component: hooks, selectors, mutators, and reads sent as events', async () => {
    const clean = `
import { useEffect, useState } from 'react';
import { setDoNotDisturb } from '../app/mutators/settings';
import type { DocumentActor } from '../app/containers';
import type { ask } from '../machines/syncCommand';
export function Toggle({ doc }: { doc: DocumentActor }) {
  const [on, setOn] = useState(false);
  useEffect(() => {
    doc.send({ type: 'document.retry' });
  }, [doc]);
  return <input type="checkbox" checked={on} onChange={() => { setOn(!on); void setDoNotDisturb(doc, !on); }} />;
}
export type Ask = typeof ask;`;
    expect(await findings('src/ui/x.tsx', clean)).toEqual([]);
  });
});

describe('server rooms: platform <- twins, platform <- app <- root (switchboard/server-zones)', () => {
  it.each([
    ['server/platform/http/x.ts', "import { a } from '../../calls/webhooks';"],
    ['server/platform/x.ts', "import { a } from '../twins/sync';"],
    ['server/platform/x.ts', "export { a } from '../app';"],
    ['server/twins/voice/x.ts', "import { a } from '../../calls/twiml';"],
    ['server/twins/sync/x.ts', "import type { A } from '../../config';"],
    ['server/twins/x.ts', "export * from '../identity/directory';"],
    ['server/twins/voice/x.ts', "import { a } from '../../../src/domain/hours';"],
    ['server/calls/x.ts', "import { a } from '../twins/voice/model';"],
    ['server/calls/x.ts', "const t = () => import('../twins');"],
    ['server/identity/x.ts', "import { a } from '../app';"],
    ['server/routing/x.ts', "import type { A } from '../config';"],
  ])('%s may not: %s', async (path, code) => {
    expect(await findings(path, code)).toHaveLength(1);
  });

  it.each([
    [
      'server/platform/http/x.ts',
      "import { a } from '../errors';\nimport { b } from '../../../src/contracts/api';",
    ],
    [
      'server/twins/voice/x.ts',
      "import { a } from '../../platform/http/body';\nimport { b } from './model';",
    ],
    ['server/twins/index.ts', "import { a } from './sync';\nimport { b } from './voice';"],
    [
      'server/calls/x.ts',
      "import { a } from '../twilio/client';\nimport { b } from '../../src/domain/hours';",
    ],
    ['server/config.ts', "import { a } from './twins/account';"],
    ['server/app.ts', "import { a } from './twins';\nimport { b } from './calls';"],
    ['tests/x.ts', "import { a } from '../server/twins/voice/model';"],
  ])('%s may import: %s', async (path, code) => {
    expect(await findings(path, code)).toEqual([]);
  });

  it('names the rule broken and where the import lands', async () => {
    expect(
      await findings('server/calls/x.ts', "import { a } from '../twins/voice/model';"),
    ).toEqual([
      'The app imports no twin (it reaches Twilio, or the twins, through the twilio package) and not the composition root. (server/twins/voice/model)',
    ]);
  });
});
