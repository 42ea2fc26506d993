import { execFileSync } from 'node:child_process';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** The short commit id the build is made from, or "dev" outside git. */
function revision(): string {
  if (process.env.SWITCHBOARD_REVISION) return process.env.SWITCHBOARD_REVISION;
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return 'dev';
  }
}

export default defineConfig({
  plugins: [react()],
  define: {
    __REVISION__: JSON.stringify(revision()),
  },
  build: {
    outDir: 'dist',
    sourcemap: false,
    chunkSizeWarningLimit: 1500,
    rolldownOptions: {
      output: {
        // Everything the entry imports statically is one file (React's JSX runtime had a chunk of
        // its own, shared with the lazy screens): /login loads the entry (which holds its screen)
        // and the bundler's runtime. Every other screen stays a lazy chunk of its own.
        codeSplitting: {
          groups: [{ name: 'index', tags: ['$initial'] }],
        },
      },
    },
  },
  server: {
    proxy: {
      '/api': 'http://127.0.0.1:8080',
      '/v3': { target: 'ws://127.0.0.1:8080', ws: true },
    },
  },
});
