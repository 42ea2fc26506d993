/**
 * The form frame every admin form shares, create and edit alike: the `<form>` (no browser
 * validation: the errors are ours), each field with its label and its error beside it (tied to it
 * for screen readers), the form's own error, save and cancel, and the busy state. On a refused
 * submit the first field at fault takes focus. What the form edits and how it is saved come from
 * a {@link FormState}: `useCreateForm` for a new thing, `EditorFrame` for a stored one.
 */
import {
  useId,
  type FormEvent,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
} from 'react';
import type { JsonObject } from '../../../contracts/record';
import type { FieldErrors } from '../../../machines/editor.machine';

/** What a form edits and how it asks to save, whether it creates or edits. */
export interface FormState<V> {
  /** What the person is editing. */
  draft: V;
  /** Field path → message, shown beside the field (after a save was asked for). */
  errors: FieldErrors;
  /** A save is under way: the form keeps its values but does not take another save. */
  busy: boolean;
  /** A refused save's reason (not a field's), or null. */
  formError: string | null;
  change: (values: V) => void;
  /** Asks to save; returns the field errors that kept it from being sent (empty when sent). */
  save: () => FieldErrors;
}

/** What the screen decides about its form: the save button's words and where Cancel goes. */
export interface FormFrame {
  submitLabel: string;
  onCancel: () => void;
}

/** How stored data (an editor's draft) reads as the record a form edits, and is written back. */
export interface FormCodec<V> {
  read(data: JsonObject): V;
  write(value: V): JsonObject;
}

type ControlProps = {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
};

/** Ids and ARIA for a form's fields (a field is a path: "name", "week.mon.0.start"). */
export interface Fields {
  id(field: string): string;
  /** The control's id, whether it is invalid, and what describes it (its error first). */
  control(field: string, ...describedBy: string[]): ControlProps;
  /** The field's error, beside it; null when it has none. */
  error(field: string): ReactNode;
}

export function useFields(errors: FieldErrors): Fields {
  const uid = useId();
  const id = (field: string) => `${uid}-${field.replace(/\./g, '-')}`;
  return {
    id,
    control: (field, ...describedBy) => ({
      id: id(field),
      'aria-invalid': errors[field] ? true : undefined,
      'aria-describedby':
        [errors[field] === undefined ? '' : `${id(field)}-error`, ...describedBy]
          .filter((s) => s !== '')
          .join(' ') || undefined,
    }),
    error: (field) =>
      errors[field] === undefined ? null : (
        <p id={`${id(field)}-error`} className="field__error">
          {errors[field]}
        </p>
      ),
  };
}

/** A field: its label, its control (given `fields.control(field)`), what follows, its error. */
export function Field({
  fields,
  field,
  label,
  children,
  after,
}: {
  fields: Fields;
  field: string;
  label: ReactNode;
  children: ReactNode;
  /** Between the control and the error: hints, a retry. */
  after?: ReactNode;
}) {
  return (
    <div className="field">
      <label htmlFor={fields.id(field)}>{label}</label>
      {children}
      {after}
      {fields.error(field)}
    </div>
  );
}

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'value' | 'onChange'>;

/** A text input field. */
export function TextField({
  fields,
  field,
  label,
  value,
  onChange,
  ...input
}: { fields: Fields; field: string; label: ReactNode; value: string } & {
  onChange: (value: string) => void;
} & InputProps) {
  return (
    <Field fields={fields} field={field} label={label}>
      <input
        {...fields.control(field)}
        value={value}
        onChange={(e) => onChange(e.currentTarget.value)}
        {...input}
      />
    </Field>
  );
}

/** A `<select>` of `options` ([value, label]), after `first` (a placeholder, a stale choice). */
export function Select({
  fields,
  field,
  value,
  onChange,
  options,
  first,
  ...select
}: { fields: Fields; field: string; value: string; onChange: (value: string) => void } & {
  options: ReadonlyArray<readonly [string, string]>;
  first?: ReactNode;
} & Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id' | 'value' | 'onChange'>) {
  return (
    <select
      {...fields.control(field)}
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      {...select}
    >
      {first}
      {options.map(([option, label]) => (
        <option key={option} value={option}>
          {label}
        </option>
      ))}
    </select>
  );
}

/**
 * A choice of one among a few (radio buttons) under a legend; `children` follow the choices (the
 * details of the one chosen), then the error of `errorOf` (the choice's own by default).
 */
export function Choices<T extends string>({
  fields,
  field,
  legend,
  labels,
  value,
  onChange,
  errorOf = field,
  children,
}: {
  fields: Fields;
  field: string;
  legend: ReactNode;
  labels: Readonly<Record<T, string>>;
  value: T;
  onChange: (value: T) => void;
  errorOf?: string;
  children?: ReactNode;
}) {
  return (
    <fieldset className="field">
      <legend>{legend}</legend>
      {(Object.entries(labels) as Array<[T, string]>).map(([option, label], i) => (
        <label key={option} className="group-form__choice">
          <input
            type="radio"
            name={fields.id(field)}
            id={i === 0 ? fields.id(field) : undefined}
            checked={value === option}
            onChange={() => onChange(option)}
          />
          {label}
        </label>
      ))}
      {children}
      {fields.error(errorOf)}
    </fieldset>
  );
}

/** A button that is not a form's submit; `quiet` for the small ones in a row, `label` names it. */
export function Button({
  onClick,
  children,
  quiet = false,
  label,
  disabled,
  ...rest
}: {
  onClick: () => void;
  children: ReactNode;
  quiet?: boolean;
  label?: string;
  disabled?: boolean;
  id?: string;
  'aria-describedby'?: string | undefined;
}) {
  return (
    <button
      type="button"
      className={quiet ? 'button button--quiet' : 'button'}
      aria-label={label}
      disabled={disabled}
      onClick={onClick}
      {...rest}
    >
      {children}
    </button>
  );
}

/**
 * A form's fields bound to its draft: `text`, `number` and `choices` read and write the field they
 * name; `field` and `select` lay out a control the form wires itself.
 */
export function useFormKit<V extends object>(form: FormState<V>) {
  const fields = useFields(form.errors);
  const draft = form.draft;
  const set = <K extends keyof V>(field: K, value: V[K]) =>
    form.change({ ...draft, [field]: value });
  type Keys<T> = { [K in keyof V]: V[K] extends T ? K : never }[keyof V] & string;
  return {
    form,
    fields,
    draft,
    set,
    /** A text input for a string field. */
    text: (field: Keys<string>, label: ReactNode, input: InputProps = {}) => (
      <TextField
        fields={fields}
        field={field}
        label={label}
        value={draft[field] as string}
        onChange={(value) => set(field, value as V[Keys<string>])}
        {...input}
      />
    ),
    /** A number input for a number field (empty while what is typed is no number). */
    number: (field: Keys<number>, label: ReactNode, input: InputProps = {}) => (
      <Field fields={fields} field={field} label={label}>
        <input
          {...fields.control(field)}
          type="number"
          value={Number.isNaN(draft[field]) ? '' : (draft[field] as number)}
          onChange={(e) => set(field, e.currentTarget.valueAsNumber as V[Keys<number>])}
          {...input}
        />
      </Field>
    ),
    /** Radio buttons choosing a field's value among `labels`; `more` follows them. */
    choices: <K extends keyof V & string>(
      field: K,
      legend: ReactNode,
      labels: Readonly<Record<V[K] & string, string>>,
      more: { children?: ReactNode; errorOf?: string } = {},
    ) => (
      <Choices
        fields={fields}
        field={field}
        legend={legend}
        labels={labels}
        value={draft[field] as V[K] & string}
        onChange={(value) => set(field, value)}
        {...more}
      />
    ),
    /** A labelled field around `control` (given `fields.control(field)`). */
    field: (field: string, label: ReactNode, control: ReactNode, after?: ReactNode) => (
      <Field fields={fields} field={field} label={label} after={after}>
        {control}
      </Field>
    ),
    /** A `<select>` for `field` (see {@link Select}). */
    select: (props: Omit<Parameters<typeof Select>[0], 'fields'>) => (
      <Select fields={fields} {...props} />
    ),
  };
}

export type FormKit<V extends object> = ReturnType<typeof useFormKit<V>>;

/** The element to focus for `field`: its control, or its "add" button (a list with no entry yet). */
function focusField(fields: Fields, field: string): void {
  const target =
    document.getElementById(fields.id(field)) ?? document.getElementById(`${fields.id(field)}-add`);
  target?.focus();
}

/**
 * The `<form>` with the form's error and its actions. `order` is the fields' order on screen (the
 * first at fault takes focus; without it, the first error reported does); `onRefused` replaces that.
 */
export function AdminForm({
  kit: { form, fields },
  order,
  onRefused,
  submitLabel,
  onCancel,
  className = 'group-form',
  actionsClassName = 'group-form__actions',
  cancelWhileBusy = false,
  markBusy = true,
  before,
  children,
}: FormFrame & {
  kit: { form: Pick<FormState<unknown>, 'busy' | 'formError' | 'save'>; fields: Fields };
  order?: readonly string[];
  onRefused?: (errors: FieldErrors) => void;
  className?: string;
  actionsClassName?: string;
  /** Cancel stays enabled during a save. */
  cancelWhileBusy?: boolean;
  /** The form says it is busy (aria-busy) during a save. */
  markBusy?: boolean;
  /** Shown just before the form's error (a list's own error). */
  before?: ReactNode;
  children: ReactNode;
}) {
  const { busy, formError } = form;
  function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    const found = form.save();
    if (Object.keys(found).length === 0) return;
    if (onRefused) return onRefused(found);
    const first = order ? order.find((f) => found[f] !== undefined) : Object.keys(found)[0];
    if (first !== undefined) focusField(fields, first);
  }
  return (
    <form
      className={className}
      noValidate
      onSubmit={submit}
      {...(markBusy ? { 'aria-busy': busy } : {})}
    >
      {children}
      {before}
      {formError !== null && (
        <p className="form-error" role="alert">
          {formError}
        </p>
      )}
      <div className={actionsClassName}>
        <button type="submit" className="button button--primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
        <button
          type="button"
          className="button"
          onClick={onCancel}
          disabled={cancelWhileBusy ? undefined : busy}
        >
          Cancel
        </button>
      </div>
    </form>
  );
}
