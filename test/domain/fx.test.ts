// Proves market-rate conversion: direct rates, exact inverses of reverse rates, exact cross rates through EUR, only current rates chosen, no rate, and one rounding step.
import { chooseRate, convertMinor, formatRatio, invert, pickRate } from '../../src/domain/fx';
import type { FxRow } from '../../src/domain/fx';
import { parseDecimal } from '../../src/domain/money';

const rows: FxRow[] = [
  { base: 'USD', quote: 'UGX', rate: '3700.000000000000' },
  { base: 'EUR', quote: 'USD', rate: '1.085000000000' },
  { base: 'KES', quote: 'UGX', rate: '28.333333333333' },
  { base: 'USD', quote: 'KES', rate: '129.5' },
  { base: 'KES', quote: 'USD', rate: '0.0077' },
];

describe('pickRate', () => {
  it('uses the direct row and its stored text', () => {
    const r = pickRate('USD', 'UGX', rows);
    expect(r).toEqual({ ratio: { num: 3700000000000000n, den: 10n ** 12n }, text: '3700.000000000000', inverse: false, pivot: null, source: 'operator', asOf: null });
  });

  it('prefers the direct row over the reverse one when both exist', () => {
    expect(pickRate('KES', 'USD', rows)?.text).toBe('0.0077');
    expect(pickRate('USD', 'KES', rows)?.text).toBe('129.5');
  });

  it('inverts the reverse row exactly and shows it to 12 decimals', () => {
    const r = pickRate('UGX', 'USD', rows);
    expect(r?.inverse).toBe(true);
    expect(r?.ratio).toEqual({ num: 10n ** 12n, den: 3700000000000000n });
    expect(r?.text).toBe('0.000270270270');
    expect(pickRate('USD', 'EUR', rows)?.text).toBe('0.921658986175');
  });

  it('gives null when neither direction has a rate', () => {
    expect(pickRate('UGX', 'EUR', rows)).toBeNull();
    expect(pickRate('TZS', 'UGX', [])).toBeNull();
  });
});

describe('cross rates through EUR', () => {
  const feed: FxRow[] = [
    { base: 'EUR', quote: 'KES', rate: '140.5', source: 'ecb', as_of: '2026-11-27T00:00:00Z' },
    { base: 'EUR', quote: 'UGX', rate: '4100.25', source: 'ecb', as_of: '2026-11-30T00:00:00Z' },
    { base: 'USD', quote: 'EUR', rate: '0.92', source: 'operator', as_of: '2026-11-30T09:00:00Z' },
  ];

  it('goes from -> EUR -> to as one exact fraction, says the pivot, and takes the older leg\'s source and as_of', () => {
    const r = pickRate('KES', 'UGX', feed)!;
    expect(r.ratio).toEqual({ num: 410025n * 10n, den: 100n * 1405n });
    expect(r.text).toBe('29.183274021352');
    expect(r).toMatchObject({ pivot: 'EUR', inverse: false, source: 'ecb', asOf: new Date('2026-11-27T00:00:00Z') });
    // 1000.00 KES = 1000 x 4100.25 / 140.5 UGX = 29183.274... UGX: rounded once, not from the 12-decimal text
    expect(convertMinor(100000n, r)).toBe(2918327n);
  });

  it('mixes a direct leg and an inverted leg', () => {
    const r = pickRate('USD', 'KES', feed)!;
    expect(r.ratio).toEqual({ num: 92n * 1405n, den: 100n * 10n });
    expect(r).toMatchObject({ pivot: 'EUR', source: 'ecb' });
    expect(pickRate('UGX', 'USD', feed)).toMatchObject({ pivot: 'EUR', source: 'ecb', asOf: new Date('2026-11-30T00:00:00Z') });
  });

  it('prefers a direct rate to a cross rate, and has none with a missing leg', () => {
    expect(pickRate('KES', 'UGX', [...feed, { base: 'KES', quote: 'UGX', rate: '29' }])?.pivot).toBeNull();
    expect(pickRate('KES', 'TZS', feed)).toBeNull();
  });

  it('chooses among current rows only, and says since when when none is current', () => {
    const current = (row: FxRow) => row.as_of !== '2026-11-27T00:00:00Z';
    expect(chooseRate('KES', 'UGX', feed, current)).toEqual({ kind: 'stale', asOf: new Date('2026-11-27T00:00:00Z') });
    expect(chooseRate('UGX', 'USD', feed, current).kind).toBe('rate');
    expect(chooseRate('KES', 'TZS', feed, current)).toEqual({ kind: 'none' });
    const withDirect = [...feed, { base: 'KES', quote: 'UGX', rate: '29', source: 'operator' as const, as_of: '2026-11-27T00:00:00Z' }];
    expect(chooseRate('KES', 'UGX', withDirect, current)).toEqual({ kind: 'stale', asOf: new Date('2026-11-27T00:00:00Z') });
  });
});

describe('convertMinor', () => {
  const rate = (from: string, to: string) => {
    const r = pickRate(from, to, rows);
    if (!r) throw new Error('no rate');
    return r;
  };

  it.each([
    // [from, to, amount minor, expected minor]
    ['USD', 'UGX', 1n, 3700n],
    ['USD', 'UGX', 1234n, 4565800n],
    ['USD', 'UGX', 100000000000000n, 370000000000000000n], // 10^12 USD
    ['EUR', 'USD', 1n, 1n], // 0.01085 -> 0.01
    ['EUR', 'USD', 10n, 11n], // 0.1085 -> 0.11
    ['EUR', 'USD', 200n, 217n], // exactly 2.17
    ['EUR', 'USD', 100000000000000n, 108500000000000n],
    // inverse: 1850 UGX = 0.5 USD exactly; 18.50 UGX = 0.005 USD -> 0.01 (half away from zero)
    ['UGX', 'USD', 185000n, 50n],
    ['UGX', 'USD', 1850n, 1n],
    ['UGX', 'USD', 1849n, 0n],
    ['UGX', 'USD', 100000000000000n, 27027027027n], // 10^12 UGX / 3700 = 270270270.27027...
    // the inverse is used exactly, not its 12-decimal text: 3700 x (1/3700) is exactly 1
    ['UGX', 'USD', 370000n, 100n],
  ])('%s -> %s: %p -> %p', (from, to, amount, expected) => {
    expect(convertMinor(amount, rate(from, to))).toBe(expected);
  });

  it('does not round the rate first (the shown 12-decimal inverse would give another cent)', () => {
    const exact = convertMinor(37n * 10n ** 14n, rate('UGX', 'USD'));
    const viaText = convertMinor(37n * 10n ** 14n, { ratio: parseDecimal('0.000270270270'), text: '', inverse: false, pivot: null, source: 'operator', asOf: null });
    expect(exact).toBe(10n ** 12n);
    expect(viaText).not.toBe(exact);
  });
});

describe('formatRatio and invert', () => {
  it.each([
    [{ num: 1n, den: 3n }, '0.333333333333'],
    [{ num: 2n, den: 3n }, '0.666666666667'],
    [{ num: 1n, den: 2n * 10n ** 12n }, '0.000000000001'], // 0.0000000000005 -> half away from zero
    [{ num: 3700n, den: 1n }, '3700.000000000000'],
  ])('%p -> %p', (r, text) => {
    expect(formatRatio(r)).toBe(text);
  });

  it('refuses to invert zero', () => {
    expect(() => invert({ num: 0n, den: 1n })).toThrow(RangeError);
  });
});
