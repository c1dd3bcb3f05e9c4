// Proves the money module converts API numbers exactly and rounds half away from zero, once.
import {
  formatMinor,
  MAX_EXACT_MINOR,
  minorFromText,
  MoneyFormatError,
  mulRatio,
  parseDecimal,
  percentOf,
  roundDiv,
  toApi,
  toMinor,
} from '../../src/domain/money';

describe('toMinor', () => {
  it.each([
    [0, 0n],
    [-0, 0n],
    [0.01, 1n],
    [0.1, 10n],
    [12.5, 1250n],
    [12.34, 1234n],
    [1500, 150000n],
    [38.3, 3830n],
    [210.35, 21035n],
    [-5.05, -505n],
    [1e12, 100000000000000n],
    [999999999999.99, 99999999999999n],
    [9999999999999.99, MAX_EXACT_MINOR],
  ])('%p -> %p', (amount, minor) => {
    expect(toMinor(amount)).toBe(minor);
  });

  it.each([[0.001], [12.345], [0.1 + 0.2], [1e21], [1e-7], [NaN], [Infinity], [-Infinity]])('refuses %p', (amount) => {
    expect(() => toMinor(amount)).toThrow(MoneyFormatError);
  });
});

describe('minorFromText', () => {
  it.each([
    ['1500', 150000n],
    ['1500.5', 150050n],
    [' 0.01 ', 1n],
    ['999999999999.99', 99999999999999n],
  ])('%p -> %p', (text, minor) => {
    expect(minorFromText(text)).toBe(minor);
  });

  it.each([[''], ['-5'], ['+5'], ['1,500'], ['12.345'], ['1e3'], ['.5'], ['5.'], ['1234567890123'], ['0x10']])('refuses %p', (text) => {
    expect(minorFromText(text)).toBeNull();
  });
});

describe('toApi', () => {
  it.each([
    [0n, 0],
    [1n, 0.01],
    [10n, 0.1],
    [1250n, 12.5],
    [-505n, -5.05],
    [-5n, -0.05],
    [21035n, 210.35],
    [100000000000000n, 1e12],
    [MAX_EXACT_MINOR, 9999999999999.99],
  ])('%p -> %p', (minor, amount) => {
    expect(toApi(minor)).toBe(amount);
  });

  it('round-trips every amount up to 15 digits of minor units exactly', () => {
    for (const minor of [1n, 99n, 123456789012345n, MAX_EXACT_MINOR, 100000000000001n, 999999999999901n]) {
      expect(toMinor(toApi(minor))).toBe(minor);
      expect(JSON.stringify(toApi(minor))).toBe(formatMinor(minor).replace(/\.?0+$/, ''));
    }
  });
});

describe('formatMinor', () => {
  it.each([
    [0n, '0.00'],
    [5n, '0.05'],
    [-5n, '-0.05'],
    [1250n, '12.50'],
    [100000000000000n, '1000000000000.00'],
  ])('%p -> %p', (minor, text) => {
    expect(formatMinor(minor)).toBe(text);
  });
});

describe('roundDiv: half away from zero', () => {
  it.each([
    [5n, 10n, 1n],
    [4n, 10n, 0n],
    [15n, 10n, 2n],
    [25n, 10n, 3n],
    [-5n, 10n, -1n],
    [-4n, 10n, 0n],
    [-25n, 10n, -3n],
    [5n, -10n, -1n],
    [-5n, -10n, 1n],
    [1n, 3n, 0n],
    [2n, 3n, 1n],
    [0n, 7n, 0n],
    [10n ** 30n + 5n, 10n, 10n ** 29n + 1n],
  ])('%p / %p -> %p', (n, d, q) => {
    expect(roundDiv(n, d)).toBe(q);
  });

  it('refuses a zero divisor', () => {
    expect(() => roundDiv(1n, 0n)).toThrow(RangeError);
  });
});

describe('parseDecimal', () => {
  it.each([
    ['3', 3n, 1n],
    ['2.50', 250n, 100n],
    ['0.000270270270', 270270270n, 1000000000000n],
    ['3700.000000000000', 3700000000000000n, 1000000000000n],
  ])('%p', (text, num, den) => {
    expect(parseDecimal(text)).toEqual({ num, den });
  });

  it.each([['-1'], ['1e3'], [''], ['1.'], ['.5'], ['abc'], ['1,5']])('refuses %p', (text) => {
    expect(() => parseDecimal(text)).toThrow(MoneyFormatError);
  });
});

describe('mulRatio and percentOf round once', () => {
  it.each([
    // 0.005-style halves go away from zero
    [1n, '0.5', 1n],
    [3n, '0.5', 2n],
    [5n, '0.1', 1n],
    [4n, '0.1', 0n],
    [-5n, '0.1', -1n],
    [100000000000000n, '3700', 370000000000000000n],
  ])('%p x %p -> %p', (amount, rate, out) => {
    expect(mulRatio(amount, parseDecimal(rate))).toBe(out);
  });

  it.each([
    [10000n, '3', 300n],
    [50n, '1', 1n], // 0.50 x 1 % = 0.005 -> 0.01
    [49n, '1', 0n], // 0.0049 -> 0.00
    [150n, '3.3', 5n], // 0.0495 -> 0.05
    [1n, '50', 1n], // 0.005 -> 0.01
    [3n, '50', 2n], // 0.015 -> 0.02
    [100000000000000n, '2.75', 2750000000000n],
    [12345n, '100', 12345n],
    [12345n, '0', 0n],
  ])('%p x %p%% -> %p', (amount, percent, out) => {
    expect(percentOf(amount, percent)).toBe(out);
  });
});
