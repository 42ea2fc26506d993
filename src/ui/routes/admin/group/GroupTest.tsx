import { useSelector } from '@xstate/react';
import { useEffect, useState } from 'react';
import { selectCallRouting, selectCallStatus } from '../../../../machines/call.selectors';
import { selectCalls } from '../../../../machines/device.selectors';
import { useDial, usePhone } from '../../../phone/usePhone';
import type { CallActor } from '../../../../machines/device.setup';
import type { RoutingNote } from '../../../../machines/call.setup';

const NO_NOTES: readonly RoutingNote[] = [];

/** What an admin dials to test a group: the group's routing, as an outside caller would get it. */
export const testAddress = (groupId: string): string => `test:${groupId}`;

/**
 * "Test this group": places a call from this browser as an outside caller would, and lists each
 * routing decision as the server makes it (the situation, the announcement, who rings, which rule
 * applied, voicemail). The call is an ordinary call on the softphone too (hang up there or here).
 */
export function GroupTest({ groupId, name }: { groupId: string; name: string }) {
  const dial = useDial();
  const { runtime, problem } = usePhone();
  const address = testAddress(groupId);
  const call = useSelector(runtime?.device, (s) => {
    if (!s) return null;
    const found = Object.values(selectCalls(s)).filter(
      (c) => c.getSnapshot().context.remote.number === address,
    );
    return found.at(-1) ?? null;
  });
  const [asked, setAsked] = useState(false);
  // The last test's decisions stay on screen after its call has gone, until another test starts.
  const [kept, setKept] = useState<readonly RoutingNote[]>(NO_NOTES);
  return (
    <section className="group-test" aria-labelledby="group-test-title">
      <h2 id="group-test-title">Test this group</h2>
      <p>
        Calls {name} from this browser as an outside caller would, and shows each decision as it is
        made. You hear what a caller hears.
      </p>
      <button
        type="button"
        className="button"
        disabled={dial === null || call !== null}
        onClick={() => {
          setAsked(true);
          setKept(NO_NOTES);
          dial?.(address, `Test call to ${name}`);
        }}
      >
        Test this group
      </button>
      {dial === null && (
        <p className="group-test__note" role="status">
          {problem ?? 'Your phone is not ready yet: testing needs it.'}
        </p>
      )}
      {call ? (
        <TestSteps call={call} onNotes={setKept} />
      ) : kept.length > 0 ? (
        <div className="group-test__steps">
          <StepList notes={kept} />
          <p role="status">The test call ended.</p>
        </div>
      ) : (
        asked && <p role="status">Starting the test call…</p>
      )}
    </section>
  );
}

function StepList({ notes }: { notes: readonly RoutingNote[] }) {
  return (
    <ol aria-live="polite" data-testid="group-test-steps">
      {notes.map((n, i) => (
        <li key={i} data-kind={n.kind}>
          {n.text}
        </li>
      ))}
    </ol>
  );
}

function TestSteps({
  call,
  onNotes,
}: {
  call: CallActor;
  onNotes: (notes: readonly RoutingNote[]) => void;
}) {
  const notes = useSelector(call, selectCallRouting);
  const status = useSelector(call, selectCallStatus);
  const ended = status === 'ended';
  useEffect(() => {
    if (notes.length > 0) onNotes(notes);
  }, [notes, onNotes]);
  return (
    <div className="group-test__steps">
      <StepList notes={notes} />
      {!ended && notes.length === 0 && <p role="status">Calling…</p>}
      {ended ? (
        <p role="status">The test call ended.</p>
      ) : (
        <button type="button" className="button" onClick={() => call.send({ type: 'call.hangUp' })}>
          End the test call
        </button>
      )}
    </div>
  );
}
