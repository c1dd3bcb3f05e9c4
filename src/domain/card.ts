// Card details after decryption (specification: the card details object; docs/contract/cards.md):
// validation, masking and the keyed fingerprint. Error messages name the rule, never the value.
import { createHmac, hkdfSync } from 'node:crypto';
import type { FieldError } from '../errors';

export const CARD_FIELDS = [
  'full_name',
  'card_number',
  'expiry_month',
  'expiry_year',
  'cvv',
  'billing_address',
  'billing_city',
  'billing_zip',
  'billing_state',
  'billing_country',
] as const;

export type CardField = (typeof CARD_FIELDS)[number];
export type CardDetails = Record<CardField, string>;

/** Field names in errors, as the request sees them. */
export const FIELD_PREFIX = 'encrypted_card.';
/** Cards are issued for at most a few years; a later year is a typing mistake. */
const MAX_YEARS_AHEAD = 20;

interface TextRule {
  max: number;
  /** some countries have no postal code or state, so those may be empty */
  allowEmpty: boolean;
}

const TEXT_RULES: Partial<Record<CardField, TextRule>> = {
  full_name: { max: 100, allowEmpty: false },
  billing_address: { max: 200, allowEmpty: false },
  billing_city: { max: 100, allowEmpty: false },
  billing_zip: { max: 20, allowEmpty: true },
  billing_state: { max: 100, allowEmpty: true },
};

const PATTERN_RULES: Partial<Record<CardField, { pattern: RegExp; message: string }>> = {
  card_number: { pattern: /^\d{12,19}$/, message: 'must be 12 to 19 digits, without spaces' },
  expiry_month: { pattern: /^(0[1-9]|1[0-2])$/, message: 'must be two digits from 01 to 12' },
  expiry_year: { pattern: /^\d{4}$/, message: 'must be four digits' },
  cvv: { pattern: /^\d{3,4}$/, message: 'must be 3 or 4 digits' },
  billing_country: { pattern: /^[A-Z]{2}$/, message: 'must be a two-letter upper-case ISO 3166 country code' },
};

const CONTROL = /[\u0000-\u001f\u007f]/;

/** The Luhn check digit test. */
export function luhn(pan: string): boolean {
  if (!/^\d+$/.test(pan)) return false;
  let sum = 0;
  for (let i = 0; i < pan.length; i++) {
    let d = pan.charCodeAt(pan.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * The sandbox's designated cards whose payments are disputed (src/sandbox/disputes.ts), and how each dispute
 * ends when the merchant does not accept it.
 */
export const DISPUTING_CARDS = { lost: '4000000000000259', won: '4000000000002685' } as const;

/** First 6 and last 4 digits, the rest as '*'. */
export function maskPan(pan: string): string {
  return pan.slice(0, 6) + '*'.repeat(Math.max(0, pan.length - 10)) + pan.slice(-4);
}

/** The fingerprint key, derived from MASTER_KEY so it never needs storing. */
export function fingerprintKey(masterKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'card-fingerprint', 32));
}

/** A keyed one-way fingerprint: equal for the same card number, useless without the key. */
export function fingerprint(key: Buffer, pan: string): string {
  return createHmac('sha256', key).update(pan, 'utf8').digest('hex');
}

function textError(value: string, rule: TextRule): string | null {
  if (!rule.allowEmpty && value.trim() === '') return 'must not be empty';
  if (value.length > rule.max) return `must be at most ${rule.max} characters`;
  if (CONTROL.test(value)) return 'must not contain control characters';
  return null;
}

function fieldError(name: CardField, value: string): string | null {
  const text = TEXT_RULES[name];
  if (text) return textError(value, text);
  const rule = PATTERN_RULES[name];
  if (rule && !rule.pattern.test(value)) return rule.message;
  if (name === 'card_number' && !luhn(value)) return 'is not a valid card number (Luhn check failed)';
  return null;
}

/** After the month it names (UTC), a card has expired; a year too far ahead is a mistake. */
function expiryError(month: string, year: string, now: Date): string | null {
  const endOfMonth = Date.UTC(Number(year), Number(month), 1);
  if (now.getTime() >= endOfMonth) return 'the card has expired (expiry_month/expiry_year is in the past)';
  if (Number(year) > now.getUTCFullYear() + MAX_YEARS_AHEAD) return `must be at most ${MAX_YEARS_AHEAD} years ahead`;
  return null;
}

/** Every broken rule of the decrypted card details; empty when the card is acceptable. */
export function validateCard(card: unknown, now: Date): FieldError[] {
  if (card === null || typeof card !== 'object' || Array.isArray(card)) {
    return [{ field: 'encrypted_card', message: 'must decrypt to a JSON object of card details' }];
  }
  const obj = card as Record<string, unknown>;
  const errors: FieldError[] = [];
  for (const name of CARD_FIELDS) {
    const value = obj[name];
    const message =
      value === undefined || value === null ? 'is required' : typeof value !== 'string' ? 'must be a string' : fieldError(name, value);
    if (message) errors.push({ field: FIELD_PREFIX + name, message });
  }
  const dateFieldsBroken = errors.some((e) => e.field === FIELD_PREFIX + 'expiry_month' || e.field === FIELD_PREFIX + 'expiry_year');
  if (!dateFieldsBroken) {
    const message = expiryError(obj.expiry_month as string, obj.expiry_year as string, now);
    if (message) errors.push({ field: FIELD_PREFIX + 'expiry_year', message });
  }
  return errors;
}

/** Only the ten card fields, once validateCard found nothing wrong (anything else is dropped). */
export function toCardDetails(card: Record<string, unknown>): CardDetails {
  const out = {} as CardDetails;
  for (const name of CARD_FIELDS) out[name] = card[name] as string;
  return out;
}
