// Form pieces that put the API's own field errors next to the field they name, and every other
// refusal above the form's buttons.
import { useId } from 'react';
import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from 'react';
import { ApiError } from '../api';

/** The API's messages about `name` (and its nested fields, `fees.0.percent` under `fees`). */
export function fieldMessages(error: unknown, name: string): string[] {
  if (!(error instanceof ApiError)) return [];
  return error.fields.filter((f) => f.field === name || f.field.startsWith(name + '.')).map((f) => (f.field === name ? f.message : `${f.field.slice(name.length + 1)}: ${f.message}`));
}

interface FieldProps {
  label: string;
  name: string;
  error: unknown;
  hint?: ReactNode;
  children: (a11y: { id: string; name: string; 'aria-invalid': boolean; 'aria-describedby'?: string }) => ReactNode;
}

export function Field({ label, name, error, hint, children }: FieldProps) {
  const id = useId();
  const messages = fieldMessages(error, name);
  const described = [hint ? `${id}-hint` : '', messages.length ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className={messages.length ? 'field invalid' : 'field'}>
      <label htmlFor={id}>{label}</label>
      {children({ id, name, 'aria-invalid': messages.length > 0, 'aria-describedby': described || undefined })}
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {messages.length > 0 && (
        <p className="field-error" id={`${id}-error`} data-field={name}>
          {messages.join('; ')}
        </p>
      )}
    </div>
  );
}

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange' | 'value'> & {
  label: string;
  name: string;
  error: unknown;
  hint?: ReactNode;
  value: string;
  onValue: (v: string) => void;
};

export function TextField({ label, name, error, hint, value, onValue, ...input }: InputProps) {
  return (
    <Field label={label} name={name} error={error} hint={hint}>
      {(a) => <input {...input} {...a} value={value} onChange={(e) => onValue(e.target.value)} />}
    </Field>
  );
}

type SelectProps = Omit<SelectHTMLAttributes<HTMLSelectElement>, 'onChange' | 'value'> & {
  label: string;
  name: string;
  error: unknown;
  options: readonly string[];
  /** what each option reads as (its value is sent); the value itself when not given */
  optionName?: (o: string) => string;
  value: string;
  onValue: (v: string) => void;
};

export function SelectField({ label, name, error, options, optionName, value, onValue, ...select }: SelectProps) {
  return (
    <Field label={label} name={name} error={error}>
      {(a) => (
        <select {...select} {...a} value={value} onChange={(e) => onValue(e.target.value)}>
          {options.map((o) => (
            <option key={o} value={o}>
              {optionName ? optionName(o) : o || 'Any'}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

export function CheckField({ label, name, checked, onValue }: { label: string; name: string; checked: boolean; onValue: (v: boolean) => void }) {
  const id = useId();
  return (
    <div className="check">
      <input id={id} name={name} type="checkbox" checked={checked} onChange={(e) => onValue(e.target.checked)} />
      <label htmlFor={id}>{label}</label>
    </div>
  );
}

/** The refusal of a whole request, or what the field errors did not cover, in the API's words. */
export function FormError({ error, shown = [] }: { error: unknown; shown?: string[] }) {
  if (!error) return null;
  if (!(error instanceof ApiError)) return <p role="alert" className="error">Something went wrong in the dashboard: {String(error)}. Reload the page and try again.</p>;
  const rest = error.fields.filter((f) => !shown.some((n) => f.field === n || f.field.startsWith(n + '.')));
  const fixHint = error.fields.length > 0 ? ' Correct the fields marked below and submit again.' : '';
  return (
    <div role="alert" className="error">
      <p>
        {error.message}.{fixHint}
      </p>
      {rest.length > 0 && (
        <ul>
          {rest.map((f) => (
            <li key={f.field + f.message}>
              <code>{f.field}</code> {f.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
