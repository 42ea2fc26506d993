import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { AUTO_DISMISS_MS, toastMachine } from '../../../src/machines/toast.machine';
import {
  selectToastMessage,
  selectToastShown,
  selectToastType,
} from '../../../src/machines/toast.selectors';

function startToast() {
  const clock = new SimulatedClock();
  const actor = createActor(toastMachine, { clock }).start();
  const view = () => {
    const s = actor.getSnapshot();
    return { shown: selectToastShown(s), message: selectToastMessage(s), type: selectToastType(s) };
  };
  return { actor, clock, view };
}

describe('toast machine', () => {
  it('starts hidden with the seed defaults (type info, no message)', () => {
    const { view, actor } = startToast();
    expect(view()).toEqual({ shown: false, message: '', type: 'info' });
    expect(actor.getSnapshot().value).toBe('hidden');
  });

  it('shows a toast of type info when no type is given', () => {
    const { actor, view } = startToast();
    actor.send({ type: 'toast.show', message: 'Saved' });
    expect(view()).toEqual({ shown: true, message: 'Saved', type: 'info' });
    expect(actor.getSnapshot().value).toEqual({ shown: 'timed' });
  });

  it.each(['info', 'success', 'warning'] as const)(
    'closes a %s toast by itself after the autoDismiss delay',
    (toastType) => {
      const { actor, clock, view } = startToast();
      actor.send({ type: 'toast.show', message: 'Hello', toastType });
      expect(view()).toMatchObject({ shown: true, type: toastType });
      clock.increment(AUTO_DISMISS_MS - 1);
      expect(view().shown).toBe(true);
      clock.increment(1);
      expect(view().shown).toBe(false);
      expect(actor.getSnapshot().value).toBe('hidden');
    },
  );

  it('keeps an error toast until it is closed', () => {
    const { actor, clock, view } = startToast();
    actor.send({ type: 'toast.show', message: 'Broken', toastType: 'error' });
    expect(actor.getSnapshot().value).toEqual({ shown: 'persistent' });
    clock.increment(AUTO_DISMISS_MS * 10);
    expect(view()).toEqual({ shown: true, message: 'Broken', type: 'error' });
    actor.send({ type: 'toast.close' });
    expect(view().shown).toBe(false);
  });

  it('closes a timed toast early on toast.close', () => {
    const { actor, view } = startToast();
    actor.send({ type: 'toast.show', message: 'Hi', toastType: 'success' });
    actor.send({ type: 'toast.close' });
    expect(view().shown).toBe(false);
  });

  it('ignores toast.close while hidden', () => {
    const { actor } = startToast();
    const before = actor.getSnapshot();
    actor.send({ type: 'toast.close' });
    expect(actor.getSnapshot().value).toBe('hidden');
    expect(actor.getSnapshot().context).toEqual(before.context);
  });

  it('replaces the shown toast with a newer one and restarts the timer', () => {
    const { actor, clock, view } = startToast();
    actor.send({ type: 'toast.show', message: 'First', toastType: 'info' });
    clock.increment(AUTO_DISMISS_MS - 1000);
    actor.send({ type: 'toast.show', message: 'Second', toastType: 'warning' });
    expect(view()).toEqual({ shown: true, message: 'Second', type: 'warning' });
    // The first toast's timer would have fired here; the second one's must not yet.
    clock.increment(1000);
    expect(view()).toMatchObject({ shown: true, message: 'Second' });
    clock.increment(AUTO_DISMISS_MS - 1000 - 1);
    expect(view().shown).toBe(true);
    clock.increment(1);
    expect(view().shown).toBe(false);
  });

  it('turns a timed toast into a persistent one when an error replaces it', () => {
    const { actor, clock, view } = startToast();
    actor.send({ type: 'toast.show', message: 'Working', toastType: 'info' });
    actor.send({ type: 'toast.show', message: 'Failed', toastType: 'error' });
    clock.increment(AUTO_DISMISS_MS * 2);
    expect(view()).toEqual({ shown: true, message: 'Failed', type: 'error' });
  });

  it('lets a non-error toast replace an error toast, which then closes by itself', () => {
    const { actor, clock, view } = startToast();
    actor.send({ type: 'toast.show', message: 'Failed', toastType: 'error' });
    actor.send({ type: 'toast.show', message: 'Recovered', toastType: 'success' });
    expect(actor.getSnapshot().value).toEqual({ shown: 'timed' });
    clock.increment(AUTO_DISMISS_MS);
    expect(view().shown).toBe(false);
  });

  it('replaces an error toast with another error that also stays', () => {
    const { actor, clock, view } = startToast();
    actor.send({ type: 'toast.show', message: 'One', toastType: 'error' });
    actor.send({ type: 'toast.show', message: 'Two', toastType: 'error' });
    clock.increment(AUTO_DISMISS_MS * 2);
    expect(view()).toEqual({ shown: true, message: 'Two', type: 'error' });
  });

  it('shows a toast again after it closed, with a fresh timer', () => {
    const { actor, clock, view } = startToast();
    actor.send({ type: 'toast.show', message: 'A' });
    clock.increment(AUTO_DISMISS_MS);
    actor.send({ type: 'toast.show', message: 'B' });
    clock.increment(AUTO_DISMISS_MS - 1);
    expect(view()).toMatchObject({ shown: true, message: 'B', type: 'info' });
  });

  it('keeps markup in a message as plain text in context', () => {
    const { actor, view } = startToast();
    actor.send({ type: 'toast.show', message: '<img src=x onerror=alert(1)>' });
    expect(view().message).toBe('<img src=x onerror=alert(1)>');
  });
});
