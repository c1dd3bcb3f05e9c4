// Each currency's own minor unit, as the dashboard and the hosted pages show money.
import { formatIn, groupedIn, isoDecimals, moneyText, shownDecimals } from '../../src/domain/currencies';

describe('currency minor units', () => {
  it('knows zero-decimal currencies by ISO 4217 and gives the rest two', () => {
    expect(['UGX', 'RWF', 'XAF', 'JPY'].map(isoDecimals)).toEqual([0, 0, 0, 0]);
    expect(['USD', 'KES', 'NGN', 'GHS', 'ZAR'].map(isoDecimals)).toEqual([2, 2, 2, 2, 2]);
  });

  it('shows a finer fraction than the currency has in full instead of rounding it away', () => {
    expect(shownDecimals(2_500_000, 'UGX')).toBe(0);
    expect(shownDecimals(2_500_050n, 'UGX')).toBe(2);
    expect(shownDecimals(1250, 'USD')).toBe(2);
  });

  it('writes hosted-page amounts in the currency unit', () => {
    expect(formatIn(2_500_000n, 'UGX')).toBe('25000');
    expect(formatIn(2_500_050n, 'UGX')).toBe('25000.50');
    expect(formatIn(1250n, 'USD')).toBe('12.50');
    expect(formatIn(5n, 'KES')).toBe('0.05');
    expect(formatIn(-1250n, 'USD')).toBe('-12.50');
  });

  it('writes money for people with thousands grouped and the currency after, in its own decimals', () => {
    expect(moneyText(2_500_000n, 'UGX')).toBe('25,000 UGX');
    expect(moneyText(2_500_050n, 'UGX')).toBe('25,000.50 UGX');
    expect(moneyText(125_050n, 'USD')).toBe('1,250.50 USD');
    expect(moneyText(100_000_000_000n, 'UGX')).toBe('1,000,000,000 UGX');
    expect(moneyText(99_900n, 'KES')).toBe('999.00 KES');
    expect(moneyText(5n, 'KES')).toBe('0.05 KES');
    expect(moneyText(-123_456_700n, 'UGX')).toBe('-1,234,567 UGX');
    expect(groupedIn(2_500_000n, 'UGX')).toBe('25,000');
  });
});
