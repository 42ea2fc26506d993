/**
 * The team's default country, on /admin: the country phone numbers typed in national format are
 * read in ("020 7946 0958" is London with the United Kingdom). Saved as it is chosen.
 */
import { useId, useMemo, useState } from 'react';
import { TEAM } from '../../../../contracts/objects';
import { TEAM_DOCUMENT, teamCountryOf } from '../../../../app/team';
import { setTeamCountry } from '../../../../app/mutators/team';
import { countryChoices, countryName } from '../../../../domain/phone-number';
import {
  selectDocumentData,
  selectDocumentStatus,
} from '../../../../machines/syncDocument.selectors';
import { useContainerSelector, useSyncDocument } from '../../../sync/useSyncContainers';
import { writeProblem } from '../../../sync/writeProblem';
import './team.css';

export function TeamCountry() {
  const id = useId();
  const team = useSyncDocument(TEAM.name, TEAM_DOCUMENT);
  const status = useContainerSelector(team, selectDocumentStatus, 'opening');
  const data = useContainerSelector(team, selectDocumentData, null);
  const stored = teamCountryOf(data);
  const choices = useMemo(() => countryChoices(), []);
  const [saving, setSaving] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);

  async function choose(code: string) {
    if (!team || code === stored) return;
    setSaving(true);
    setMessage(null);
    try {
      await setTeamCountry(team, code);
      setMessage({ ok: true, text: `Numbers are now read as ${countryName(code)} numbers.` });
    } catch (error) {
      setMessage({ ok: false, text: writeProblem(error) });
    } finally {
      setSaving(false);
    }
  }

  return (
    <section className="team-country" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Phone numbers</h2>
      <div className="field">
        <label htmlFor={`${id}-country`}>Team's default country</label>
        <select
          id={`${id}-country`}
          value={stored}
          disabled={status !== 'ready' || saving}
          aria-describedby={`${id}-hint${message ? ` ${id}-message` : ''}`}
          aria-busy={saving || undefined}
          data-testid="team-country"
          onChange={(e) => void choose(e.target.value)}
        >
          {stored === '' && <option value="">Not set</option>}
          {choices.map((c) => (
            <option key={c.code} value={c.code}>
              {c.name} (+{c.callingCode})
            </option>
          ))}
        </select>
        <p className="field__hint" id={`${id}-hint`}>
          Numbers typed without + and a country code (in contacts and the dial box) are read as
          numbers of this country, and shown the way they are dialled there.
        </p>
        {message && (
          <p
            id={`${id}-message`}
            className={message.ok ? 'field__hint' : 'field__error'}
            role={message.ok ? 'status' : 'alert'}
          >
            {message.text}
          </p>
        )}
      </div>
    </section>
  );
}
