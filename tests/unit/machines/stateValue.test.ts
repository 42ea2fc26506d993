import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { callMachine } from '../../../src/machines/call.machine';
import { deviceMachine } from '../../../src/machines/device.machine';
import { stateValueText } from '../../../src/machines/stateValue';

describe('stateValueText', () => {
  it('names a simple state by its own name and a nested one by its path', () => {
    expect(stateValueText('follower')).toBe('follower');
    expect(stateValueText({ incoming: 'ringing' })).toBe('incoming.ringing');
  });

  it('lists every region of a parallel state, in chart order', () => {
    expect(stateValueText({ open: { audio: 'muted', link: 'reconnecting' } })).toBe(
      'open.audio.muted open.link.reconnecting',
    );
    expect(
      stateValueText({
        owner: { registration: 'registered', token: { renewing: 'waiting' } },
      }),
    ).toBe('owner.registration.registered owner.token.renewing.waiting');
  });

  it('reads live snapshots', () => {
    const call = createActor(callMachine, {
      input: {
        direction: 'incoming',
        callId: 'CA1',
        remote: { identity: 'ann', number: null, displayName: null },
        params: {},
        now: () => 0,
      },
    }).start();
    expect(stateValueText(call.getSnapshot().value)).toBe('incoming.ringing');
    call.send({ type: 'call.accept' });
    call.send({ type: 'call.accepted' });
    expect(stateValueText(call.getSnapshot().value)).toBe(
      'open.audio.unmuted open.hold.off open.them.present open.park.idle open.transfer.idle open.link.connected',
    );
    call.stop();
    const device = createActor(deviceMachine, { input: { owner: false, now: () => 0 } }).start();
    expect(stateValueText(device.getSnapshot().value)).toBe('follower');
    device.stop();
  });
});
