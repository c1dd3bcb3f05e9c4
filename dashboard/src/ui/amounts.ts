// An amount as a person types it in a form: a positive number of at most two decimals, in minor units;
// anything else is null and goes to the API as typed, which refuses it at its field.
import { toMinor } from '../../../src/domain/money';

export function amountMinorOf(text: string): bigint | null {
  const t = text.trim();
  if (!/^\d+(\.\d{1,2})?$/.test(t) || Number(t) <= 0) return null;
  return toMinor(Number(t));
}
