/**
 * Bench (a), socket row: map events pushed by the real server over real sockets into two real
 * twilio-sync clients, one bare and one through the container machine, each in a process of its own
 * (tests/bench/contacts-pushed-client.ts) so that each side's CPU time is what a pushed event costs
 * that client from the frame off the socket to the view. A lightweight Twilsock writer
 * (tests/bench/raw-twilsock.ts) in this process makes the writes; both clients receive the same
 * notifications at the same time.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { signIn, token } from '../integration/sync/support';
import { RawClient } from './raw-twilsock';

const MAP = 'bench-pushed';
const KEYS = 10_000;
const IN_FLIGHT = 32;

interface RoundReply {
  type: 'round';
  cpuMs: number;
  viewCalls: number;
  viewSize: number;
  viewHasRow: boolean;
  lastNote: string;
}

class Side {
  readonly child: ChildProcess;
  private waiting: { ok: (m: RoundReply) => void; fail: (e: Error) => void } | null = null;
  readonly ready: Promise<void>;

  constructor(url: string, side: 'bare' | 'machine') {
    this.child = fork(resolve(import.meta.dirname, 'contacts-pushed-client.ts'), [url, side, MAP], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.ready = new Promise((ok, fail) => {
      // A client that dies fails its start or the round it owes, instead of leaving the bench waiting.
      this.child.once('exit', (code) => {
        const error = new Error(`${side} client exited with ${code}`);
        fail(error);
        this.waiting?.fail(error);
      });
      this.child.on('message', (m: { type: string }) => {
        if (m.type === 'ready') ok();
        if (m.type === 'round') this.waiting?.ok(m as RoundReply);
      });
    });
  }

  round(events: number, lastKey: string): Promise<RoundReply> {
    return new Promise((ok, fail) => {
      this.waiting = { ok, fail };
      this.child.send({ type: 'round', events, lastKey });
    });
  }

  stop(): void {
    this.child.send({ type: 'exit' });
  }
}

const contact = (n: number, i: number) => ({
  name: `Person ${n}`,
  company: 'Globex',
  phones: [{ label: 'Work', number: `+1555${n}` }],
  email: '',
  note: `v${i}`,
});

/** Writes `count` map sets (keys round-robin from `first`), at most IN_FLIGHT in flight. */
async function write(writer: RawClient, sid: string, first: number, count: number): Promise<void> {
  let next = first;
  const end = first + count;
  const lane = async (): Promise<void> => {
    while (next < end) {
      const i = next++;
      const n = i % KEYS;
      const reply = await writer.request('PUT', `/v3/Maps/${sid}/Items/c-${n}`, {
        data: contact(n, i),
      });
      if (reply.code !== 200 && reply.code !== 201) throw new Error(`write ${i}: ${reply.code}`);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
}

export interface PushedRun {
  /** CPU µs per event of each measured round, per side. */
  bare: number[];
  machine: number[];
  events: number;
}

/**
 * One warm-up round of KEYS adds (every contact exists afterwards), then `rounds` rounds of
 * `events` updates round-robin; every round checks each side applied all of them and its view
 * holds the last write.
 */
export async function pushedEvents(
  url: string,
  rounds: number,
  events: number,
): Promise<PushedRun> {
  const t = await token(url, await signIn(url, 'pushed-writer@example.com'));
  const writer = await RawClient.connect(t.sync.twilsock.uri, t.token, 'TMpw-');
  const created = await writer.request('POST', '/v3/Maps', { unique_name: MAP });
  if (created.code !== 201) throw new Error(`could not create ${MAP}: ${created.code}`);
  const sid = (created.body as { sid: string }).sid;
  const bare = new Side(url, 'bare');
  const machine = new Side(url, 'machine');
  const out: PushedRun = { bare: [], machine: [], events };
  try {
    await Promise.all([bare.ready, machine.ready]);
    let first = 0;
    for (let r = 0; r <= rounds; r++) {
      const count = r === 0 ? KEYS : events;
      const last = first + count - 1;
      const lastKey = `c-${last % KEYS}`;
      const replies = Promise.all([bare.round(count, lastKey), machine.round(count, lastKey)]);
      await write(writer, sid, first, count);
      const [b, m] = await replies;
      for (const [name, reply] of [
        ['bare', b],
        ['machine', m],
      ] as const) {
        if (reply.lastNote !== `v${last}` || reply.viewSize !== KEYS || !reply.viewHasRow) {
          throw new Error(
            `${name} view holds ${reply.lastNote} for ${lastKey} (not v${last}), ` +
              `${reply.viewSize} contacts (not ${KEYS}), a row: ${reply.viewHasRow}`,
          );
        }
      }
      if (r > 0) {
        out.bare.push((b.cpuMs * 1000) / count);
        out.machine.push((m.cpuMs * 1000) / count);
      }
      console.log(
        `  (a) pushed round ${r || 'warm-up'}: ${count} events; client CPU per event bare ` +
          `${((b.cpuMs * 1000) / count).toFixed(1)} µs, machine ${((m.cpuMs * 1000) / count).toFixed(1)} µs`,
      );
      first += count;
    }
  } finally {
    bare.stop();
    machine.stop();
    writer.close();
  }
  return out;
}
