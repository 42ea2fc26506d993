import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Machines are pure: no SDK, no fetch, no timers, no clock. These arrive as provided actors. */
const machinePurity = {
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          group: ['twilio-sync', '@twilio/*', 'react', 'react-dom', 'react-router*'],
          message: 'Machines import no SDK or UI: provide it as an actor.',
        },
        {
          // The SDK-free sync modules (ports, validation, errors, constants) are the machines' vocabulary.
          group: [
            '**/ui/**',
            '**/sync/**',
            '!**/sync/ports',
            '!**/sync/validation',
            '!**/sync/errors',
            '!**/sync/constants',
            '**/voice/**',
            '**/auth/**',
            '**/server/**',
          ],
          message: 'Machines sit below ui and above the ports.',
        },
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

export default tseslint.config(
  {
    ignores: [
      '.scratch/**',
      'dist/**',
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
  {
    files: ['src/ui/**/*.{ts,tsx}', 'src/machines/**/*.ts', 'src/sync/**/*.ts', 'src/auth/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/server/**'], message: 'The browser never imports server code.' },
          ],
        },
      ],
    },
  },
  { files: ['src/machines/**/*.ts'], ignores: ['src/machines/**/*.test.ts'], rules: machinePurity },
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
    // The server imports only the contracts and the domain rules from src/ (server/CONTEXT.md).
    files: ['server/**/*.ts'],
    rules: {
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
