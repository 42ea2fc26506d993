import { execFileSync } from 'node:child_process';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin, type Rollup } from 'vite';

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

/**
 * Writes `route-preloads.json`: for the routes a person often opens first (/login), the files its
 * lazy screen needs and the API answers it asks for, so the server can name them in that page's
 * HTML and the browser fetches them while the main script downloads (server/http/static.ts).
 */
function routePreloads(): Plugin {
  const screens: Record<string, { module: string; fetch: string[] }> = {
    '/login': { module: 'src/ui/routes/login/LoginScreen.tsx', fetch: ['/api/config'] },
  };
  return {
    name: 'switchboard-route-preloads',
    apply: 'build',
    generateBundle(_options, bundle) {
      const out: Record<string, { scripts: string[]; styles: string[]; fetch: string[] }> = {};
      for (const [path, { module, fetch }] of Object.entries(screens)) {
        const chunk = Object.values(bundle).find(
          (c): c is Rollup.OutputChunk =>
            c.type === 'chunk' && (c.facadeModuleId ?? '').endsWith(module),
        );
        if (!chunk) continue;
        const scripts = [chunk.fileName, ...chunk.imports].map((f) => `/${f}`);
        const styles = [...(chunk.viteMetadata?.importedCss ?? [])].map((f) => `/${f}`);
        out[path] = { scripts, styles, fetch };
      }
      this.emitFile({
        type: 'asset',
        fileName: 'route-preloads.json',
        source: JSON.stringify(out),
      });
    },
  };
}

export default defineConfig({
  plugins: [react(), routePreloads()],
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
        // its own, shared with the lazy screens): /login loads the entry, the bundler's runtime and
        // its screen. Every screen stays a lazy chunk of its own.
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
