/**
 * Preload for `BENCH_SYNC_CPU_PROF=<dir> npm run bench sync`: Node refuses --cpu-prof in NODE_OPTIONS, so this
 * starts the V8 profiler through the inspector and writes <dir>/server-<pid>.cpuprofile when the process exits.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const dir = process.env.SWITCHBOARD_CPU_PROF_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 200 });
  session.post('Profiler.start');
  process.on('exit', () => {
    // An in-thread inspector session answers synchronously, so this runs before the process is gone.
    session.post('Profiler.stop', (err, result) => {
      if (!err)
        writeFileSync(
          join(dir, `server-${process.pid}.cpuprofile`),
          JSON.stringify(result.profile),
        );
    });
  });
}
