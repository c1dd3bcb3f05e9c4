// A payment link's page (docs/contract/payment-links.md): the form a customer fills in, and what it posts
// read into an attempt or into the errors shown next to each field, in words. Server-rendered, no
// JavaScript, readable at phone width.
import type { PaymentLinkRow } from '../../api-records/payment-link';
import { moneyText } from '../../domain/currencies';
import type { PaymentMethod } from '../../domain/collection';
import { minorFromText } from '../../domain/money';
import type { AttemptInput } from '../../payment-links/attempts';
import { escapeHtml } from './layout';

const METHOD_NAMES: Record<PaymentMethod, string> = { MOBILE_MONEY: 'Mobile money', CARD: 'Card', BANK: 'Bank', CRYPTO: 'Crypto' };
const MAX_CUSTOM_VALUE = 100;

export type FormErrors = Record<string, string>;

/** Text PostgreSQL can store: no NUL, no unpaired surrogate (a browser never sends them; a forged form may). */
const STORABLE = /^(?:[^\u0000\uD800-\uDFFF]|[\uD800-\uDBFF][\uDC00-\uDFFF])*$/;

function amountOf(link: PaymentLinkRow, form: Record<string, string>, errors: FormErrors): bigint {
  if (link.amount_minor !== null) return link.amount_minor;
  const minor = minorFromText(form.amount ?? '');
  const min = link.min_amount_minor!;
  const max = link.max_amount_minor!;
  if (minor === null || minor < min || minor > max) {
    errors.amount = `Enter an amount from ${moneyText(min, link.currency)} to ${moneyText(max, link.currency)}`;
  }
  return minor ?? 0n;
}

/** What the form posted, as an attempt, or the errors to show with it. */
export function readForm(link: PaymentLinkRow, form: Record<string, string>): { input: AttemptInput } | { errors: FormErrors } {
  const errors: FormErrors = {};
  for (const [field, value] of Object.entries(form)) if (typeof value !== 'string' || !STORABLE.test(value)) errors[field] = 'Remove the characters that cannot be read';
  const amountMinor = amountOf(link, form, errors);
  const method = link.payment_methods.find((m) => m === form.method) ?? null;
  if (!method) errors.method = 'Choose how to pay';
  const phone = (form.phone ?? '').replace(/[\s+-]/g, '');
  if (method === 'MOBILE_MONEY' && !/^[0-9]{10,15}$/.test(phone)) errors.phone = 'Enter the phone number with its country code, digits only';
  const name = (form.name ?? '').trim();
  const email = (form.email ?? '').trim();
  if (method === 'CARD' && (name.length === 0 || name.length > 64)) errors.name = 'Enter the name on the card';
  if (method === 'CARD' && !/^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{2,63}$/.test(email)) errors.email = 'Enter your email address';
  const customValues: Record<string, string> = {};
  link.custom_fields.forEach((f, i) => {
    const value = (form[`field${i}`] ?? '').trim();
    if (f.required && value === '') errors[`field${i}`] = `Fill in ${f.label}`;
    else if (value.length > MAX_CUSTOM_VALUE) errors[`field${i}`] = `${f.label} is too long`;
    else if (value !== '') customValues[f.label] = value;
  });
  if (Object.keys(errors).length > 0) return { errors };
  return {
    input: {
      method: method!,
      amountMinor,
      phone: method === 'MOBILE_MONEY' ? phone : null,
      name: method === 'CARD' ? name : null,
      email: method === 'CARD' ? email : null,
      customValues,
    },
  };
}

function error(errors: FormErrors, field: string): string {
  return errors[field] ? `<p class="error" id="${field}-error">${escapeHtml(errors[field])}</p>` : '';
}

function input(name: string, label: string, attrs: string, form: Record<string, string>, errors: FormErrors): string {
  const invalid = errors[name] ? ` aria-invalid="true" aria-describedby="${name}-error"` : '';
  return `<label for="${name}">${escapeHtml(label)}</label><input id="${name}" name="${name}" value="${escapeHtml(form[name] ?? '')}" ${attrs}${invalid}>${error(errors, name)}`;
}

/** The page's body: what is paid for, the amount, the custom fields, the method and the customer's details. */
export function linkForm(link: PaymentLinkRow, hidden: string, form: Record<string, string> = {}, errors: FormErrors = {}): string {
  const amount =
    link.amount_minor !== null
      ? `<p class="amount">${escapeHtml(moneyText(link.amount_minor, link.currency))}</p>`
      : input('amount', `Amount in ${link.currency} (${moneyText(link.min_amount_minor!, link.currency)} to ${moneyText(link.max_amount_minor!, link.currency)})`, 'inputmode="decimal" required', form, errors);
  const fields = link.custom_fields
    .map((f, i) => input(`field${i}`, f.required ? f.label : `${f.label} (optional)`, `maxlength="${MAX_CUSTOM_VALUE}"${f.required ? ' required' : ''}`, form, errors))
    .join('');
  const methods = link.payment_methods
    .map((m, i) => `<label><input type="radio" name="method" value="${m}"${form.method === m || (!form.method && i === 0) ? ' checked' : ''} style="width:auto"> ${METHOD_NAMES[m]}</label>`)
    .join('');
  const phone = link.payment_methods.includes('MOBILE_MONEY') ? input('phone', 'Phone number for mobile money (country code first)', 'inputmode="tel" autocomplete="tel"', form, errors) : '';
  const card = link.payment_methods.includes('CARD')
    ? input('name', 'Name on the card (card payments)', 'autocomplete="cc-name"', form, errors) + input('email', 'Email (card payments)', 'type="email" autocomplete="email"', form, errors)
    : '';
  return `<h1>${escapeHtml(link.title)}</h1>${link.description ? `<p>${escapeHtml(link.description)}</p>` : ''}
<form method="post" action="/l/${escapeHtml(link.link_id)}">${hidden}${amount}${fields}
<fieldset style="border:0;padding:0;margin:12px 0 0"><legend>Pay by</legend>${methods}${error(errors, 'method')}</fieldset>${phone}${card}
<button class="primary" type="submit">Pay</button></form>`;
}
