/**
 * `npm run charts`: writes docs/statecharts/ from src/machines.
 * `npm run charts -- --check`: exits 1 when the committed charts differ from a fresh generation.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chartFor, loadMachines, renderAll } from './statecharts';

const root = resolve(import.meta.dirname, '..');
const outDir = join(root, 'docs/statecharts');

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const machines = await loadMachines(join(root, 'src/machines'));
  const files = renderAll(machines.map(({ name, machine }) => chartFor(name, machine)));
  const existing = existsSync(outDir) ? readdirSync(outDir).filter((f) => f.endsWith('.md')) : [];

  if (check) {
    const stale = [
      ...[...files]
        .filter(
          ([f, text]) => !existing.includes(f) || readFileSync(join(outDir, f), 'utf8') !== text,
        )
        .map(([f]) => f),
      ...existing.filter((f) => !files.has(f)),
    ];
    if (stale.length > 0) {
      console.error(
        `Statecharts are stale: ${stale.join(', ')}. Run \`npm run charts\` and commit docs/statecharts.`,
      );
      process.exit(1);
    }
    console.log(`Statecharts are current (${files.size - 1} machines).`);
    return;
  }
  mkdirSync(outDir, { recursive: true });
  for (const f of existing) if (!files.has(f)) rmSync(join(outDir, f));
  for (const [f, text] of files) writeFileSync(join(outDir, f), text);
  console.log(`Wrote ${files.size - 1} statecharts to docs/statecharts.`);
}

await main();
