// @vitest-environment jsdom
/**
 * useCreateForm, the state a create screen gives its form: errors beside the fields once a save was
 * asked for (following the typing), nothing sent while they stand (a save asked for while the data is
 * not there yet is made once it is), and a write the contract refused (WriteRefused) shown beside its field, or as the form's
 * error when the form has no such field. Nothing typed is lost.
 */
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAppActors } from '../../../../../src/app/page';
import { WriteRefused } from '../../../../../src/app/mutators/core';
import { ActorsProvider } from '../../../../../src/ui/app/actors';
import type { FormState } from '../../../../../src/ui/routes/admin/form';
import { useCreateForm } from '../../../../../src/ui/routes/admin/useCreateForm';

afterEach(cleanup);

let form: FormState<{ name: string }> | null = null;

function Probe({ create }: { create: ((v: { name: string }) => Promise<void>) | null }) {
  form = useCreateForm({
    initial: () => ({ name: '' }),
    validate: (v) => (v.name === '' ? { name: 'Enter a name.' } : {}),
    fields: ['name'],
    create,
    savedMessage: (v) => `${v.name} was created.`,
    onCreated: () => {},
  });
  return (
    <dl>
      <dd data-testid="name">{form.draft.name}</dd>
      <dd data-testid="errors">{JSON.stringify(form.errors)}</dd>
      <dd data-testid="formError">{form.formError ?? 'none'}</dd>
      <dd data-testid="busy">{String(form.busy)}</dd>
    </dl>
  );
}

function setup(create: ((v: { name: string }) => Promise<void>) | null) {
  const actors = createAppActors({
    fetch: () => Promise.reject(new Error('no server')),
    currentPath: () => '/',
  });
  const view = (c: typeof create) => (
    <ActorsProvider actors={actors}>
      <Probe create={c} />
    </ActorsProvider>
  );
  const { rerender } = render(view(create));
  /** The data arrives: the screen can now create. */
  return { ready: (c: (v: { name: string }) => Promise<void>) => rerender(view(c)) };
}

const text = (id: string) => screen.getByTestId(id).textContent;

describe('useCreateForm', () => {
  it('shows errors beside the fields, follows the typing, and sends nothing while they stand', () => {
    const create = vi.fn(() => Promise.resolve());
    setup(create);
    act(() => void form!.save());
    expect(text('errors')).toBe('{"name":"Enter a name."}');
    act(() => form!.change({ name: 'Sales' }));
    expect(text('errors')).toBe('{}');
    expect(create).not.toHaveBeenCalled();
  });

  it('holds a save asked for while connecting, and makes it once the data is there', async () => {
    const { ready } = setup(null);
    act(() => form!.change({ name: 'Sales' }));
    act(() => void form!.save());
    expect(text('formError')).toBe(
      'Still connecting to the team’s data; it is saved as soon as that is done.',
    );
    expect(text('busy')).toBe('true');
    const create = vi.fn(() => Promise.resolve());
    act(() => ready(create));
    await waitFor(() => expect(create).toHaveBeenCalledWith({ name: 'Sales' }));
    expect(create).toHaveBeenCalledTimes(1);
    expect(text('formError')).toBe('none');
  });

  it('shows a refusal beside the field it names, keeping what was typed', async () => {
    setup(() => Promise.reject(new WriteRefused('group', 'name', 'Use at most 80 characters.')));
    act(() => form!.change({ name: 'Sales' }));
    act(() => void form!.save());
    await waitFor(() => expect(text('errors')).toBe('{"name":"Use at most 80 characters."}'));
    expect(text('busy')).toBe('false');
    expect(text('name')).toBe('Sales');
  });

  it('shows a refusal of a field the form does not have as the form’s error', async () => {
    setup(() => Promise.reject(new WriteRefused('group', 'guidance.closed', 'Expected string')));
    act(() => form!.change({ name: 'Sales' }));
    act(() => void form!.save());
    await waitFor(() => expect(text('formError')).toBe('guidance.closed: Expected string'));
    expect(text('errors')).toBe('{}');
  });
});
