import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/** Browser tests drive the built app served by the real server: build it once if it is missing. */
export default function setup(): void {
  const root = resolve(import.meta.dirname, '../..');
  if (!existsSync(resolve(root, 'dist/index.html'))) {
    execFileSync('npx', ['vite', 'build'], { cwd: root, stdio: 'inherit' });
  }
  execFileSync('bash', ['scripts/ensure-chromium.sh'], { cwd: root, stdio: 'inherit' });
}
