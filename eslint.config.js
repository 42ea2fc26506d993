import { dirname, relative, resolve } from 'node:path';
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * Import zones, one way: contracts <- domain <- machines <- io <- app <- ui, and nothing in src/
 * imports server/. Each zone lists what it may not import (relative paths name the folder).
 */
const SERVER = { group: ['**/server/**'], message: 'The browser never imports server code.' };
const above = (zone, folders) => ({
  group: folders.flatMap((folder) => [`**/${folder}`, `**/${folder}/**`]),
  message: `${zone} sits below ${folders.join(', ')}: import the other way round.`,
});

/** The SDKs reach the browser only through src/io (and src/ui never loads them, even lazily). */
const SDKS = ['twilio-sync', '@twilio/voice-sdk'];
const SDK_IMPORTS = {
  group: [...SDKS, '@twilio/*'],
  message: 'Only src/io talks to the SDKs.',
};

/** Machines are pure: no SDK, no fetch, no timers, no clock. These arrive as provided actors. */
const machinePurity = {
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          group: [...SDKS, '@twilio/*', 'react', 'react-dom', 'react-router*'],
          message: 'Machines import no SDK or UI: provide it as an actor.',
        },
        above('src/machines', ['io', 'app', 'ui']),
        SERVER,
      ],
    },
  ],
  'no-restricted-globals': [
    'error',
    { name: 'fetch', message: 'Provide I/O as an actor.' },
    { name: 'setTimeout', message: 'Use named delays.' },
    { name: 'setInterval', message: 'Use named delays.' },
    { name: 'Date', message: 'Time is provided.' },
    { name: 'localStorage', message: 'Storage is provided.' },
    { name: 'sessionStorage', message: 'Storage is provided.' },
  ],
};

/** Sync commands that write: the named mutators of src/app/mutators send them, never a view. */
const WRITE_COMMANDS =
  '/^(list|map|document|stream)\\.(push|set|update|mutate|remove|setTtl|setItemTtl|publish|removeList|removeMap|removeDocument|removeStream)$/';
const EFFECT =
  'CallExpression:matches([callee.name=/^use(Layout)?Effect$/], [callee.property.name=/^use(Layout)?Effect$/])';

/** What React code may not do: own an actor's life from an effect, write around the mutators, load an SDK. */
const uiRules = {
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        SERVER,
        SDK_IMPORTS,
        {
          group: [
            '**/io/sync/client',
            '**/io/sync/adapters',
            '**/io/sync/bridges/**',
            '**/io/voice/client',
            '**/io/voice/sdk',
          ],
          allowTypeImports: true,
          message: 'src/ui reaches the SDKs only through the workspace (src/app).',
        },
        {
          group: ['**/machines/syncAsk', '**/machines/syncCommand'],
          allowTypeImports: true,
          message: 'Write through a named mutator (src/app/mutators/<feature>.ts).',
        },
      ],
    },
  ],
  'no-restricted-syntax': [
    'error',
    {
      selector: `${EFFECT} CallExpression[callee.name='createActor']`,
      message:
        'Long-lived actors are created in src/app (the page or the workspace), not in a React effect.',
    },
    {
      selector: `${EFFECT} CallExpression[callee.property.name='start'][arguments.length=0]`,
      message: 'Actors are started in src/app (the page or the workspace), not in a React effect.',
    },
    {
      selector: `CallExpression[callee.property.name='send'] > ObjectExpression > Property[key.name='type'][value.value=${WRITE_COMMANDS}]`,
      message:
        'Write through a named mutator (src/app/mutators/<feature>.ts), not a command sent from a view.',
    },
    {
      selector: "CallExpression[callee.property.name='sdkClient']",
      message: 'src/ui uses no SDK object: write through a named mutator (src/app/mutators/).',
    },
    {
      selector: `ImportExpression[source.value=/^(twilio-sync|@twilio\\u002F)/]`,
      message: 'Only src/io loads the SDKs.',
    },
  ],
};

/**
 * The server's rooms, one way (server/CONTEXT.md): the platform imports no feature; Twilio's twins
 * stand beside the app as outside services and import only the platform, the contracts and their
 * own; the app's features import no twin and not the composition roots (app.ts, main.ts, config.ts; twins-main.ts for the twins' own process),
 * which alone may make the twins. Which room a relative import reaches is worked out from the
 * importing file's own path, so `../..` is judged where it lands.
 */
const ROOT = import.meta.dirname;
const ROOT_FILES = new Set([
  'server/app.ts',
  'server/main.ts',
  'server/config.ts',
  'server/twins-main.ts',
]);
function serverRoom(path) {
  if (!path.startsWith('server/')) return path.startsWith('src/contracts/') ? 'contracts' : 'src';
  if (ROOT_FILES.has(path) || /^server\/(app|main|config|twins-main)$/.test(path)) return 'root';
  if (path.startsWith('server/platform/') || path === 'server/platform') return 'platform';
  if (path.startsWith('server/twins/') || path === 'server/twins') return 'twins';
  return 'app';
}
const MAY_IMPORT = {
  platform: new Set(['platform', 'contracts']),
  twins: new Set(['twins', 'platform', 'contracts']),
  app: new Set(['app', 'platform', 'contracts', 'src']),
  root: new Set(['root', 'app', 'twins', 'platform', 'contracts', 'src']),
};
const WHY = {
  platform: 'server/platform is the framework: it imports no feature and no twin.',
  twins:
    "Twilio's twins are outside services: they import only server/platform, src/contracts and their own (the app is reached over HTTP, tokens and webhooks).",
  app: 'The app imports no twin (it reaches Twilio, or the twins, through the twilio package) and not the composition root.',
};
const serverZones = {
  meta: { type: 'problem', schema: [], messages: { crossing: '{{why}} ({{target}})' } },
  create(context) {
    const file = relative(ROOT, context.filename).split('\\').join('/');
    if (!file.startsWith('server/')) return {};
    const from = serverRoom(file);
    const check = (node) => {
      const spec = node.source?.value;
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const target = relative(ROOT, resolve(dirname(context.filename), spec))
        .split('\\')
        .join('/');
      const to = serverRoom(target);
      if (!MAY_IMPORT[from].has(to))
        context.report({ node, messageId: 'crossing', data: { why: WHY[from], target } });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

export default tseslint.config(
  {
    ignores: [
      '.scratch/**',
      'dist/**',
      'build/**',
      'node_modules/**',
      'data/**',
      '.test-data/**',
      'docs/**',
      'coverage/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.browser, ...globals.node },
    },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  // The zones of src/, one way: contracts <- domain <- machines <- io <- app <- ui.
  {
    files: ['src/contracts/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [above('src/contracts', ['domain', 'machines', 'io', 'app', 'ui']), SERVER] },
      ],
    },
  },
  {
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [above('src/domain', ['machines', 'io', 'app', 'ui']), SERVER] },
      ],
    },
  },
  { files: ['src/machines/**/*.ts'], rules: machinePurity },
  {
    files: ['src/io/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [above('src/io', ['app', 'ui']), SERVER] }],
    },
  },
  {
    files: ['src/app/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [above('src/app', ['ui']), SDK_IMPORTS, SERVER] },
      ],
    },
  },
  { files: ['src/ui/**/*.{ts,tsx}'], rules: uiRules },
  {
    files: ['src/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [SERVER] }] },
  },
  {
    files: ['tests/**/*.{ts,tsx}', 'scripts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  { files: ['eslint.config.js'], ...tseslint.configs.disableTypeChecked },
  {
    // The service worker ships as written (public/ is copied to dist as is): plain JS, its globals.
    files: ['public/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      globals: globals.serviceworker,
      parserOptions: { projectService: false, project: null },
    },
  },
  {
    // The server imports only the contracts and the domain rules from src/ (server/CONTEXT.md), and
    // its rooms one way (serverZones above).
    files: ['server/**/*.ts'],
    plugins: { switchboard: { rules: { 'server-zones': serverZones } } },
    rules: {
      'switchboard/server-zones': 'error',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)src/(?!contracts/|domain/)',
              message: 'The server imports only src/contracts and src/domain from src/.',
            },
          ],
        },
      ],
    },
  },
);
