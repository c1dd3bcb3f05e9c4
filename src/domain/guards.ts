// The guards of money out that a person sets (docs/contract/disbursements.md, "Changing the guards"): a
// wallet's approval threshold and limits, an API token's IP allowlist. Pure: whether a change loosens a
// guard (so it waits for its notice, every owner told) or tightens it (so it applies at once).

/**
 * Whether setting an amount guard (an approval threshold or a limit, null for none) from `current` to
 * `next` loosens it: removing one, or raising it. From none to an amount tightens; the same value again
 * changes nothing (and withdraws a loosening that waits).
 */
export function amountLoosens(current: bigint | null, next: bigint | null): boolean {
  if (current === null) return false;
  return next === null || next > current;
}
