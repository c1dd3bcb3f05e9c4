// Amounts as vendors take them. Inside, money is minor units with the API's two decimals; a vendor may
// take fewer (ISO 4217 zero-decimal currencies, domain/currencies.ts; M-Pesa's whole shillings), so an amount is converted
// only when it is exact, never rounded. Pure.
import { SCALE } from '../domain/money';

/** 50000n (500.00) -> "500" with 0 decimals, "500.00" with 2; null when not exact at that precision. */
export function amountText(amountMinor: bigint, decimals: number): string | null {
  if (decimals < 0 || decimals > SCALE) throw new RangeError('decimals must be 0..2');
  const drop = 10n ** BigInt(SCALE - decimals);
  if (amountMinor % drop !== 0n) return null;
  const units = amountMinor / drop;
  if (decimals === 0) return units.toString();
  const factor = 10n ** BigInt(decimals);
  return `${units / factor}.${(units % factor).toString().padStart(decimals, '0')}`;
}

/** A vendor's decimal amount ("500", "500.5", 500, 1.0) -> minor units; null when not a plain amount. */
export function parseVendorAmount(value: unknown): bigint | null {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : typeof value === 'string' ? value.trim() : '';
  const m = /^(\d{1,15})(?:\.(\d{1,2})0*)?$/.exec(text);
  if (!m) return null;
  return BigInt(m[1]) * 10n ** BigInt(SCALE) + BigInt((m[2] ?? '').padEnd(SCALE, '0'));
}
