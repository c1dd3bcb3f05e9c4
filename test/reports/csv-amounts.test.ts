// Proves the reports' amount cells: exact decimal text in the currency's own minor unit (UGX "25000",
// USD "25.00"), a finer amount than that unit (which the API accepts) written in full, negatives kept.
import { amountCell } from '../../src/reports/csv';
import { minorOf } from './csv';

it('writes each currency at its own decimals, never rounding away a finer amount', () => {
  expect(amountCell(2500000n, 'UGX')).toBe('25000');
  expect(amountCell(2500000n, 'RWF')).toBe('25000');
  expect(amountCell(2500n, 'USD')).toBe('25.00');
  expect(amountCell(240000n, 'KES')).toBe('2400.00');
  expect(amountCell(2500050n, 'UGX')).toBe('25000.50');
  expect(amountCell(7n, 'UGX')).toBe('0.07');
  expect(amountCell(-4850000n, 'UGX')).toBe('-48500');
  expect(amountCell(-5n, 'USD')).toBe('-0.05');
  expect(amountCell(0n, 'UGX')).toBe('0');
  expect(amountCell(null, 'UGX')).toBeNull();
  // and the test reader takes each back exactly
  for (const [minor, currency] of [[2500000n, 'UGX'], [2500050n, 'UGX'], [-5n, 'USD'], [2500n, 'USD']] as const) {
    expect(minorOf(amountCell(minor, currency)!, currency)).toBe(minor);
  }
  expect(() => minorOf('25000.00', 'UGX')).toThrow(/not exact/);
  expect(() => minorOf('25', 'USD')).toThrow(/not exact/);
});
