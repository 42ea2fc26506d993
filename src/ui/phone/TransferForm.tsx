import { useId, useState } from 'react';

/** Who to transfer to, and how: at once (blind), or after talking to them (consult). */
export function TransferForm({
  onTransfer,
}: {
  onTransfer: (to: string, mode: 'blind' | 'consult') => void;
}) {
  const [to, setTo] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const id = useId();
  const send = (mode: 'blind' | 'consult') => {
    if (to.trim() === '') {
      setProblem(
        'Type who to transfer the call to: a name, an extension, an email or a ring group’s number.',
      );
      return;
    }
    setProblem(null);
    onTransfer(to.trim(), mode);
  };
  return (
    <form
      className="call-card__transfer-form"
      aria-label="Transfer"
      onSubmit={(e) => {
        e.preventDefault();
        send('blind');
      }}
    >
      <label htmlFor={`${id}-to`}>Transfer to</label>
      <input
        id={`${id}-to`}
        value={to}
        onChange={(e) => setTo(e.target.value)}
        placeholder="Name, extension, email or group number"
        autoComplete="off"
        maxLength={200}
        aria-describedby={problem ? `${id}-problem` : undefined}
        autoFocus
      />
      <div className="call-card__actions">
        <button type="submit" className="button button--primary">
          Transfer now
        </button>
        <button type="button" className="button" onClick={() => send('consult')}>
          Talk first
        </button>
      </div>
      {problem && (
        <p id={`${id}-problem`} className="call-card__problem" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}
