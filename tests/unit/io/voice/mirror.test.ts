import { afterEach, describe, expect, it } from 'vitest';
import type { CallSummary } from '../../../../src/machines/call.selectors';
import { callSummary as summary } from './callSummary';
import {
  createCallMirror,
  parseMirrorMessage,
  type CallMirror,
  type MirrorCommand,
} from '../../../../src/io/voice/mirror';

/** Waits for BroadcastChannel deliveries (they are asynchronous, also in Node). */
const settle = () => new Promise((r) => setTimeout(r, 30));

const open: CallMirror[] = [];
afterEach(() => {
  for (const m of open.splice(0)) m.stop();
});

function tab(name: string, owner: { value: boolean }, calls: CallSummary[] = []) {
  const commands: [string, MirrorCommand][] = [];
  const mirror = createCallMirror({
    channel: new BroadcastChannel(name),
    isOwner: () => owner.value,
    current: () => calls,
    onCommand: (id, c) => commands.push([id, c]),
  });
  open.push(mirror);
  return { mirror, commands };
}

describe('call mirror between the tabs of one person', () => {
  it('a tab that opens late hears the owner calls; changes follow; commands reach the owner only', async () => {
    const name = `mirror-${Math.random()}`;
    const calls = [summary()];
    const owner = tab(name, { value: true }, calls);
    owner.mirror.publish(calls);
    const follower = tab(name, { value: false });
    await settle();
    expect(follower.mirror.getCalls()).toEqual(calls);
    expect(owner.mirror.getCalls()).toEqual([]);

    let notified = 0;
    follower.mirror.subscribe(() => (notified += 1));
    owner.mirror.publish([summary({ status: 'open', answeredAt: 5 })]);
    await settle();
    expect(follower.mirror.getCalls()[0]?.status).toBe('open');
    expect(notified).toBe(1);

    follower.mirror.command('CA1', { type: 'call.mute' });
    owner.mirror.command('CA1', { type: 'call.hangUp' });
    await settle();
    expect(owner.commands).toEqual([['CA1', { type: 'call.mute' }]]);
    expect(follower.commands).toEqual([]);
  });

  it('the owner closing clears what its followers show', async () => {
    const name = `mirror-${Math.random()}`;
    const calls = [summary()];
    const owner = tab(name, { value: true }, calls);
    const follower = tab(name, { value: false });
    owner.mirror.publish(calls);
    await settle();
    expect(follower.mirror.getCalls()).toHaveLength(1);
    owner.mirror.stop();
    await settle();
    expect(follower.mirror.getCalls()).toEqual([]);
  });

  it('counts and ignores messages of the wrong shape', async () => {
    const name = `mirror-${Math.random()}`;
    const follower = tab(name, { value: false });
    const hostile = new BroadcastChannel(name);
    const bad: unknown[] = [
      null,
      'calls',
      { kind: 'calls', calls: 'x' },
      { kind: 'calls', calls: [{ ...summary(), status: 'exploded' }] },
      { kind: 'calls', calls: [{ ...summary(), answeredAt: 'soon' }] },
      { kind: 'calls', calls: Array.from({ length: 21 }, () => summary()) },
      { kind: 'command', callId: 'CA1', command: { type: 'call.transferToMars' } },
      { kind: 'command', callId: 'CA1', command: { type: 'call.digits', digits: '1; rm -rf' } },
      { kind: 'command', callId: '', command: { type: 'call.accept' } },
    ];
    for (const message of bad) hostile.postMessage(message);
    await settle();
    hostile.close();
    expect(follower.mirror.refused()).toBe(bad.length);
    expect(follower.mirror.getCalls()).toEqual([]);
  });

  it('parses every command a follower may send', () => {
    for (const type of ['call.accept', 'call.reject', 'call.hangUp', 'call.mute', 'call.unmute'])
      expect(parseMirrorMessage({ kind: 'command', callId: 'CA1', command: { type } })).toEqual({
        kind: 'command',
        callId: 'CA1',
        command: { type },
      });
    expect(
      parseMirrorMessage({
        kind: 'command',
        callId: 'CA1',
        command: { type: 'call.digits', digits: '12#' },
      }),
    ).toEqual({ kind: 'command', callId: 'CA1', command: { type: 'call.digits', digits: '12#' } });
  });
});
