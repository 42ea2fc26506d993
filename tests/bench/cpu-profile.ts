/**
 * Preload for `BENCH_SYNC_CPU_PROF=<dir> npm run bench sync` and `BENCH_VOICE_CPU_PROF=<dir> npm run
 * bench voice`: Node refuses --cpu-prof in NODE_OPTIONS, so this starts the V8 profiler through the
 * inspector and writes <dir>/server-<pid>.cpuprofile when the process exits. With
 * SWITCHBOARD_CPU_PROF_WINDOW=1 it profiles only between two SIGUSR2s (the bench's measured window)
 * and writes <dir>/window-<pid>-<n>.cpuprofile at the second.
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
  const write = (name: string) =>
    // An in-thread inspector session answers synchronously, so this runs before the process is gone.
    session.post('Profiler.stop', (err, result) => {
      if (!err) writeFileSync(join(dir, name), JSON.stringify(result.profile));
    });
  if (process.env.SWITCHBOARD_CPU_PROF_WINDOW === '1') {
    let windows = 0;
    let on = false;
    process.on('SIGUSR2', () => {
      on = !on;
      if (on) session.post('Profiler.start');
      else write(`window-${process.pid}-${++windows}.cpuprofile`);
    });
  } else {
    session.post('Profiler.start');
    process.on('exit', () => write(`server-${process.pid}.cpuprofile`));
  }
}
