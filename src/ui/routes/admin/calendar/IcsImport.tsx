import { useId, useRef, useState } from 'react';
import type { Holiday } from '../../../../contracts/records/calendar';
import { IcsError, parseIcs, planImport, type ImportPlan } from '../../../../domain/ics';
import { describeDays, newHolidayId } from './holidays';

/**
 * "Import from a calendar file": an `.ics` file read here, with a preview of what it adds (what
 * would overlap a holiday already there, or an earlier one in the file, is left out, with why).
 */
export function IcsImport({
  holidays,
  onAdd,
}: {
  holidays: readonly Holiday[];
  onAdd: (fresh: Holiday[]) => void;
}) {
  const uid = useId();
  const inputId = `${uid}-ics`;
  const [imported, setImported] = useState<{
    file: string;
    result: ImportPlan;
    fresh: Holiday[];
  } | null>(null);
  const [importError, setImportError] = useState<string | null>(null);
  const fileRef = useRef<HTMLInputElement>(null);

  const readFile = async (file: File | undefined) => {
    setImportError(null);
    setImported(null);
    if (!file) return;
    try {
      if (file.size > 1024 * 1024)
        throw new IcsError('This file is over 1 MB; export fewer events.');
      // Bytes, not text: a line folded inside a UTF-8 character is joined before decoding.
      const result = parseIcs(new Uint8Array(await file.arrayBuffer()));
      const plan = planImport(holidays, result);
      if (plan.add.length === 0 && plan.skipped.length === 0)
        throw new IcsError('This file has no events to import.');
      const fresh = plan.add.map((h) => ({ id: newHolidayId(), ...h }));
      setImported({ file: file.name, result: plan, fresh });
    } catch (error) {
      setImportError(
        error instanceof IcsError
          ? error.message
          : 'This file could not be read. Choose an .ics file.',
      );
    } finally {
      if (fileRef.current) fileRef.current.value = '';
    }
  };

  return (
    <>
      <h2>Import from a calendar file</h2>
      <div className="field">
        <label htmlFor={inputId}>iCalendar file (.ics)</label>
        <input
          ref={fileRef}
          id={inputId}
          type="file"
          accept=".ics,text/calendar"
          aria-invalid={importError ? true : undefined}
          aria-describedby={importError ? `${inputId}-error` : undefined}
          onChange={(e) => void readFile(e.target.files?.[0])}
        />
        {importError && (
          <p id={`${inputId}-error`} className="field__error" role="alert">
            {importError}
          </p>
        )}
      </div>
      {imported && (
        <div
          className="calendar-edit__import"
          data-testid="ics-preview"
          role="region"
          aria-label="Import preview"
        >
          <p>
            From {imported.file}: {imported.fresh.length} to add
            {imported.result.skipped.length > 0 && `, ${imported.result.skipped.length} left out`}.
            {imported.result.repeating.length > 0 &&
              ` Repeating events are added once, for their first date: ${imported.result.repeating.join(', ')}.`}
          </p>
          {imported.fresh.length > 0 && (
            <ul>
              {imported.fresh.map((h) => (
                <li key={h.id}>
                  {h.label}: {describeDays(h)}
                </li>
              ))}
            </ul>
          )}
          {imported.result.skipped.length > 0 && (
            <ul className="calendar-edit__skipped">
              {imported.result.skipped.map((s, i) => (
                <li key={i}>
                  Left out {s.label}: {s.reason}
                </li>
              ))}
            </ul>
          )}
          <div className="calendar-edit__actions">
            <button
              type="button"
              className="button"
              disabled={imported.fresh.length === 0}
              onClick={() => {
                onAdd(imported.fresh);
                setImported(null);
              }}
            >
              Add {imported.fresh.length} {imported.fresh.length === 1 ? 'holiday' : 'holidays'}
            </button>
            <button
              type="button"
              className="button button--quiet"
              onClick={() => setImported(null)}
            >
              Cancel import
            </button>
          </div>
        </div>
      )}
    </>
  );
}
