// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ContactWriteError } from '../../../../../src/app/mutators/contacts';
import { ContactDialog } from '../../../../../src/ui/routes/contacts/ContactDialog';
import { emptyForm } from '../../../../../src/ui/routes/contacts/validation';

afterEach(cleanup);

function renderDialog(onSave = vi.fn(() => Promise.resolve())) {
  const onClose = vi.fn();
  render(
    <ContactDialog
      mode="add"
      initial={emptyForm()}
      gone={false}
      country="GB"
      onSave={onSave}
      onClose={onClose}
    />,
  );
  const type = (label: string, value: string) =>
    fireEvent.change(screen.getByLabelText(label), { target: { value } });
  const submit = () =>
    act(async () => {
      fireEvent.submit(screen.getByLabelText('Name').closest('form')!);
      // Let the save promise settle inside act.
      await Promise.resolve();
    });
  return { onSave, onClose, type, submit };
}

describe('the contact form', () => {
  it('shows each problem beside its field, focuses the first, and calls nothing', async () => {
    const { onSave, type, submit } = renderDialog();
    type('Number', 'call me');
    type('Email (optional)', 'nope');
    await submit();
    expect(onSave).not.toHaveBeenCalled();
    expect(screen.getByText('Enter a name.')).toBeTruthy();
    expect(screen.getByText(/digits only/)).toBeTruthy();
    expect(screen.getByText(/name@example.com/)).toBeTruthy();
    expect(screen.getByLabelText('Name').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByLabelText('Name').getAttribute('aria-describedby')).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByLabelText('Name'));
  });

  it('moves focus to the first field in error, here a phone number', async () => {
    const { type, submit } = renderDialog();
    type('Name', 'Ada');
    type('Number', '1');
    await submit();
    expect(document.activeElement).toBe(screen.getByLabelText('Number'));
    expect(screen.getByLabelText('Number').getAttribute('aria-invalid')).toBe('true');
  });

  it('saves the cleaned contact and closes', async () => {
    const { onSave, onClose, type, submit } = renderDialog();
    type('Name', '  Ada  ');
    type('Number', '020 7946 0958');
    await submit();
    expect(onSave).toHaveBeenCalledWith(
      {
        name: 'Ada',
        company: '',
        phones: [{ label: 'Mobile', number: '+442079460958' }],
        email: '',
        note: '',
      },
      false,
    );
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('keeps everything typed when the save fails, says why, and lets the person try again', async () => {
    const onSave = vi
      .fn<(...args: unknown[]) => Promise<void>>()
      .mockRejectedValueOnce(new ContactWriteError('The service refused this change: no'))
      .mockResolvedValueOnce(undefined);
    const { onClose, type, submit } = renderDialog(onSave);
    type('Name', 'Grace');
    type('Company', 'Navy');
    type('Number', '204');
    type('Note (optional)', 'Mornings');
    await submit();
    expect(screen.getByRole('alert').textContent).toBe('The service refused this change: no');
    expect(onClose).not.toHaveBeenCalled();
    expect(screen.getByLabelText<HTMLInputElement>('Name').value).toBe('Grace');
    expect(screen.getByLabelText<HTMLInputElement>('Company').value).toBe('Navy');
    expect(screen.getByLabelText<HTMLInputElement>('Number').value).toBe('204');
    expect(screen.getByLabelText<HTMLTextAreaElement>('Note (optional)').value).toBe('Mornings');
    await submit();
    expect(onSave).toHaveBeenCalledTimes(2);
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('closes on Escape', () => {
    const { onClose } = renderDialog();
    fireEvent.keyDown(screen.getByLabelText('Name'), { key: 'Escape' });
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});
