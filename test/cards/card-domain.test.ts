// Proves the card rules of docs/contract/cards.md: every field checked, errors name the field and never echo the value.
import fc from 'fast-check';
import { CARD_FIELDS, fingerprint, fingerprintKey, luhn, maskPan, toCardDetails, validateCard } from '../../src/domain/card';
import type { CardDetails } from '../../src/domain/card';
import { GOOD_CARD } from './fixtures';

const NOW = new Date('2025-11-25T10:00:00Z');

/** Appends the Luhn check digit. */
function withCheckDigit(body: string): string {
  for (let d = 0; d <= 9; d++) if (luhn(body + d)) return body + d;
  throw new Error('unreachable');
}

describe('luhn', () => {
  it.each(['4000000000003006', '4000000000003014', '4111111111111111', '5555555555554444', '378282246310005', '6011111111111117'])(
    'accepts the known test number %s',
    (pan) => expect(luhn(pan)).toBe(true),
  );

  it.each(['4000000000003007', '4111111111111112', '1234567890123', '', '41111111111a1111'])('refuses %p', (pan) => expect(luhn(pan)).toBe(false));

  it('accepts exactly one check digit for any number body', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{11,18}$/), (body) => {
        const valid = [...'0123456789'].filter((d) => luhn(body + d));
        expect(valid).toHaveLength(1);
      }),
    );
  });
});

describe('maskPan', () => {
  it.each([
    ['4000000000003006', '400000******3006'],
    ['378282246310005', '378282*****0005'],
    ['400000000006', '400000**0006'],
    ['4000000000000000006', '400000*********0006'],
  ])('%s -> %s', (pan, masked) => expect(maskPan(pan)).toBe(masked));

  it('keeps the length and shows only the first 6 and last 4 digits', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{12,19}$/), (pan) => {
        const masked = maskPan(pan);
        expect(masked).toHaveLength(pan.length);
        expect(masked.slice(6, -4)).toMatch(/^\*+$/);
        expect(masked.slice(0, 6) + masked.slice(-4)).toBe(pan.slice(0, 6) + pan.slice(-4));
      }),
    );
  });
});

describe('fingerprint', () => {
  const key = fingerprintKey(Buffer.alloc(32, 7));

  it('is stable, keyed, hex, and does not contain the number', () => {
    const pan = '4000000000003006';
    const fp = fingerprint(key, pan);
    expect(fp).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint(key, pan)).toBe(fp);
    expect(fingerprint(key, '4000000000003014')).not.toBe(fp);
    expect(fingerprint(fingerprintKey(Buffer.alloc(32, 8)), pan)).not.toBe(fp);
    expect(fp).not.toContain(pan);
  });
});

describe('validateCard', () => {
  it('accepts a good card, also without postal code and state', () => {
    expect(validateCard(GOOD_CARD, NOW)).toEqual([]);
    expect(validateCard({ ...GOOD_CARD, billing_zip: '', billing_state: '' }, NOW)).toEqual([]);
  });

  it('accepts 12- to 19-digit numbers, 4-digit CVVs and a card valid until the end of this month', () => {
    for (const pan of [withCheckDigit('40000000000'), withCheckDigit('400000000000000000')]) {
      expect(validateCard({ ...GOOD_CARD, card_number: pan }, NOW)).toEqual([]);
    }
    expect(validateCard({ ...GOOD_CARD, cvv: '1234' }, NOW)).toEqual([]);
    expect(validateCard({ ...GOOD_CARD, expiry_month: '11', expiry_year: '2025' }, new Date('2025-11-30T23:59:59Z'))).toEqual([]);
  });

  // Each value is distinctive so the test can prove it is not echoed.
  const broken: [keyof CardDetails, unknown, RegExp][] = [
    ['full_name', '   ', /empty/],
    ['full_name', 'N'.repeat(101), /at most 100/],
    ['full_name', 'Jane\u0007Doe', /control/],
    ['card_number', '4000000000003007', /Luhn/],
    ['card_number', '4000 0000 0000 3006', /12 to 19 digits/],
    ['card_number', '40000000003', /12 to 19 digits/],
    ['card_number', '40000000000000000003', /12 to 19 digits/],
    ['card_number', 4000000000003006, /string/],
    ['expiry_month', '13', /01 to 12/],
    ['expiry_month', '7', /01 to 12/],
    ['expiry_month', '00', /01 to 12/],
    ['expiry_year', '30', /four digits/],
    ['expiry_year', '2099', /years ahead/],
    ['cvv', '73', /3 or 4 digits/],
    ['cvv', '73712', /3 or 4 digits/],
    ['cvv', '7a7', /3 or 4 digits/],
    ['billing_address', '', /empty/],
    ['billing_address', 'A'.repeat(201), /at most 200/],
    ['billing_city', '', /empty/],
    ['billing_zip', 'Z'.repeat(21), /at most 20/],
    ['billing_state', 'S'.repeat(101), /at most 100/],
    ['billing_country', 'ug', /two-letter/],
    ['billing_country', 'UGA', /two-letter/],
    ['billing_country', null, /required/],
  ];

  it.each(broken)('names %s (bad value #%#) and does not echo the value', (field, value, message) => {
    const errors = validateCard({ ...GOOD_CARD, [field]: value }, NOW);
    expect(errors).toEqual([{ field: `encrypted_card.${field}`, message: expect.stringMatching(message) }]);
    if (typeof value === 'string' && value.trim().length >= 2) expect(JSON.stringify(errors)).not.toContain(JSON.stringify(value).slice(1, -1));
  });

  it('refuses an expired card on its expiry year, without echoing the date', () => {
    const errors = validateCard({ ...GOOD_CARD, expiry_month: '10', expiry_year: '2025' }, NOW);
    expect(errors).toEqual([{ field: 'encrypted_card.expiry_year', message: expect.stringMatching(/expired/) }]);
    expect(validateCard({ ...GOOD_CARD, expiry_month: '11', expiry_year: '2025' }, new Date('2025-12-01T00:00:00Z'))).toHaveLength(1);
    expect(JSON.stringify(errors)).not.toMatch(/2025|10\//);
  });

  it('lists every missing field, and a non-string as such', () => {
    const errors = validateCard({}, NOW);
    expect(errors).toEqual(CARD_FIELDS.map((f) => ({ field: `encrypted_card.${f}`, message: 'is required' })));
    expect(validateCard({ ...GOOD_CARD, cvv: 737 }, NOW)).toEqual([{ field: 'encrypted_card.cvv', message: 'must be a string' }]);
  });

  it('never puts the card number or the CVV in an error, whatever else is wrong', () => {
    const card = { ...GOOD_CARD, card_number: '4000000000003007', cvv: '98765', expiry_month: '13' };
    const text = JSON.stringify(validateCard(card, NOW));
    for (const secret of ['4000000000003007', '98765', '400000', '3007']) expect(text).not.toContain(secret);
  });

  it('refuses something that is not an object', () => {
    for (const value of [null, [], 'card', 42]) {
      expect(validateCard(value, NOW)).toEqual([{ field: 'encrypted_card', message: expect.any(String) }]);
    }
  });

  it('keeps only the ten card fields', () => {
    expect(toCardDetails({ ...GOOD_CARD, extra: 'x' })).toEqual(GOOD_CARD);
  });
});
