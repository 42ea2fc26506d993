/**
 * `npm run bench [name...]`: runs the benchmarks (all by default), prints their figures and ratios,
 * and writes them into docs/performance.md. Benchmarks are not tests: they never fail the build.
 */
import { benchContacts } from './contacts';
import { benchLogin } from './login';
import { benchRouting } from './routing';
import { benchSync } from './sync';
import { benchUpload } from './upload';
import { benchVoice } from './voice';

const benches: Record<string, () => Promise<string>> = {
  login: benchLogin,
  contacts: benchContacts,
  sync: benchSync,
  voice: benchVoice,
  upload: benchUpload,
  routing: benchRouting,
};

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
for (const name of wanted.length ? wanted : Object.keys(benches)) {
  const run = benches[name];
  if (!run) {
    console.error(`Unknown benchmark "${name}". Known: ${Object.keys(benches).join(', ')}`);
    process.exit(2);
  }
  console.log(`\n=== bench: ${name}`);
  console.log(await run());
}
