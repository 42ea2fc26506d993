import { useEffect, useId, useRef } from 'react';
import { Link } from 'react-router-dom';
import { Modal } from '../components/Modal';
import { paths } from '../app/paths';
import { SHORTCUT_ACTIONS } from '../../contracts/records/settings';
import { HELP_KEY, type ShortcutHints } from './shortcuts';
import './shortcuts.css';

/**
 * The "?" overlay: every keyboard shortcut, as this person has them, in a modal dialog (focus moves
 * in, Escape or Close returns it to where it was). Opened by "?" anywhere focus is not in a text
 * field.
 */
export function ShortcutsHelp({ hints, onClose }: { hints: ShortcutHints; onClose: () => void }) {
  const id = useId();
  // After the dialog opened (its effect runs first): Close, not the link before it.
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => close.current?.focus(), []);
  return (
    <Modal labelledBy={`${id}-title`} onClose={onClose} className="shortcuts-help">
      <h2 id={`${id}-title`}>Keyboard shortcuts</h2>
      <table className="shortcuts-help__table" data-testid="shortcuts-help">
        <thead>
          <tr>
            <th scope="col">Action</th>
            <th scope="col">Keys</th>
          </tr>
        </thead>
        <tbody>
          {SHORTCUT_ACTIONS.map((action) => (
            <tr key={action} data-testid={`shortcut-help-${action}`}>
              <th scope="row">{hints[action].label}</th>
              <td>
                <kbd>{hints[action].keys}</kbd>
              </td>
            </tr>
          ))}
          <tr>
            <th scope="row">Send a tone while the keypad is open</th>
            <td>
              <kbd>0</kbd>–<kbd>9</kbd>, <kbd>*</kbd>, <kbd>#</kbd>
            </td>
          </tr>
          <tr>
            <th scope="row">Go to the phone</th>
            <td>
              <kbd>Tab</kbd> at the top of the page, then “Skip to the phone”
            </td>
          </tr>
          <tr>
            <th scope="row">Show this list</th>
            <td>
              <kbd>{HELP_KEY}</kbd>
            </td>
          </tr>
        </tbody>
      </table>
      <p>
        Typing in a text field never triggers the keys without Alt.{' '}
        <Link to={paths.settings.build()} onClick={onClose}>
          Change the shortcuts in Settings
        </Link>
      </p>
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose} ref={close}>
          Close
        </button>
      </div>
    </Modal>
  );
}
