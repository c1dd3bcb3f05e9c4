// The jump guard of the daily feeds (docs/operations.md, "Market rates"): a feed's new rate for a pair that
// moves more than RATE_JUMP_PERCENT from the rate in use is held for the operator, not used. Pure.

/** How far `next` is from `previous`, in percent of `previous` (positive up, negative down), to 2 decimals. */
export function movePercent(previous: string | number, next: string | number): number {
  const p = Number(previous);
  return Math.round(((Number(next) - p) / p) * 10_000) / 100;
}

/** Whether the move from `previous` to `next` is beyond the guard (exactly `percent` is not). */
export function isJump(previous: string | number, next: string | number, percent: number): boolean {
  const p = Number(previous);
  return Math.abs(Number(next) - p) * 100 > percent * p;
}
