// The hosted card entry form: rendering (with per-field errors) and reading the posted fields into the
// card details object that validateCard checks. The card number and the CVV are never written back
// into a page: a form with errors shows them empty, whatever was typed.
import { CARD_FIELDS, FIELD_PREFIX } from '../../domain/card';
import type { CardDetails, CardField } from '../../domain/card';
import type { FieldError } from '../../errors';
import { escapeHtml } from './layout';

/** Never echoed into a page. */
const SECRET_FIELDS: ReadonlySet<CardField> = new Set(['card_number', 'cvv']);
/** Longer than any valid value, short enough that a pasted essay is cut before any work. */
const MAX_FIELD_CHARS = 256;

interface InputSpec {
  label: string;
  autocomplete: string;
  numeric?: boolean;
  maxlength: number;
  required: boolean;
  placeholder?: string;
}

const INPUTS: Record<CardField, InputSpec> = {
  full_name: { label: 'Name on card', autocomplete: 'cc-name', maxlength: 100, required: true },
  card_number: { label: 'Card number', autocomplete: 'cc-number', numeric: true, maxlength: 23, required: true, placeholder: '1234 5678 9012 3456' },
  expiry_month: { label: 'Expiry month', autocomplete: 'cc-exp-month', numeric: true, maxlength: 2, required: true, placeholder: 'MM' },
  expiry_year: { label: 'Expiry year', autocomplete: 'cc-exp-year', numeric: true, maxlength: 4, required: true, placeholder: 'YYYY' },
  cvv: { label: 'Security code (CVV)', autocomplete: 'cc-csc', numeric: true, maxlength: 4, required: true, placeholder: '123' },
  billing_address: { label: 'Billing address', autocomplete: 'billing street-address', maxlength: 200, required: true },
  billing_city: { label: 'City', autocomplete: 'billing address-level2', maxlength: 100, required: true },
  billing_zip: { label: 'Postal code', autocomplete: 'billing postal-code', maxlength: 20, required: false },
  billing_state: { label: 'State or region', autocomplete: 'billing address-level1', maxlength: 100, required: false },
  billing_country: { label: 'Country (2 letters)', autocomplete: 'billing country', maxlength: 2, required: true, placeholder: 'UG' },
};

/** Fields shown side by side on one row. */
const PAIRS: CardField[][] = [['expiry_month', 'expiry_year'], ['billing_zip', 'billing_state']];

export type FieldErrors = Partial<Record<CardField, string>>;

/** validateCard's errors keyed by form field (its names carry the API's `encrypted_card.` prefix). */
export function errorsByField(errors: FieldError[]): FieldErrors {
  const out: FieldErrors = {};
  for (const e of errors) {
    const name = e.field.slice(FIELD_PREFIX.length) as CardField;
    if (e.field.startsWith(FIELD_PREFIX) && name in INPUTS) out[name] ??= e.message;
  }
  return out;
}

function text(form: Record<string, unknown>, name: CardField): string {
  const v = form[name];
  return typeof v === 'string' ? v.slice(0, MAX_FIELD_CHARS).trim() : '';
}

/**
 * The posted form as card details, forgiving what people type: spaces and dashes in the card number,
 * a one-digit month, a two-digit year, a lower-case country.
 */
export function cardFromForm(form: Record<string, unknown>): CardDetails {
  const card = {} as CardDetails;
  for (const name of CARD_FIELDS) card[name] = text(form, name);
  card.card_number = card.card_number.replace(/[\s-]/g, '');
  if (/^\d$/.test(card.expiry_month)) card.expiry_month = '0' + card.expiry_month;
  if (/^\d{2}$/.test(card.expiry_year)) card.expiry_year = '20' + card.expiry_year;
  card.billing_country = card.billing_country.toUpperCase();
  return card;
}

function input(name: CardField, value: string, error: string | undefined): string {
  const spec = INPUTS[name];
  const shown = SECRET_FIELDS.has(name) ? '' : value;
  const attrs = [
    `id="${name}"`,
    `name="${name}"`,
    'type="text"',
    `autocomplete="${spec.autocomplete}"`,
    `maxlength="${spec.maxlength}"`,
    `value="${escapeHtml(shown)}"`,
    spec.numeric ? 'inputmode="numeric"' : '',
    spec.placeholder ? `placeholder="${escapeHtml(spec.placeholder)}"` : '',
    spec.required ? 'required' : '',
    error ? `aria-invalid="true" aria-describedby="${name}-error"` : '',
  ].filter(Boolean);
  const message = error ? `<p class="error" id="${name}-error">${escapeHtml(spec.label)}: ${escapeHtml(error)}</p>` : '';
  return `<div><label for="${name}">${escapeHtml(spec.label)}</label><input ${attrs.join(' ')}>${message}</div>`;
}

export interface EntryForm {
  /** values to show again (the card number and CVV are dropped whatever is given) */
  values: Partial<CardDetails>;
  errors: FieldErrors;
}

/** The entry form's fields, paired ones on one row. */
export function entryFields({ values, errors }: EntryForm): string {
  const paired = new Set(PAIRS.flat());
  const html: string[] = [];
  for (const name of CARD_FIELDS) {
    const pair = PAIRS.find((p) => p[0] === name);
    if (pair) html.push(`<div class="row">${pair.map((n) => input(n, values[n] ?? '', errors[n])).join('')}</div>`);
    else if (!paired.has(name)) html.push(input(name, values[name] ?? '', errors[name]));
  }
  return html.join('\n');
}
