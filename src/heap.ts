// How much memory the service process keeps between full garbage collections. Under load most of what a
// request allocates dies young, but what is still waiting on the database when the young generation is
// collected is promoted, and V8 lets the old generation grow to up to four times what survived its last full
// collection before it collects again. HEAP_GROWING_PERCENT bounds that growth (e.g. 50: half as much again):
// the resident set under load falls by about 80 MB, for more full collections, which lengthen the tail of the
// answer times. Measured, the trade is not free (docs/performance.md, "Peak memory"), so it is off unless set.
// The flag is read at every full collection, so setting it once the process runs takes effect from the next.
import v8 from 'node:v8';

/** Bounds the old generation's growth to `percent` past its survivors; 0 leaves V8's own rule. */
export function limitHeapGrowth(percent: number, setFlags: (flags: string) => void = v8.setFlagsFromString): void {
  if (percent > 0) setFlags(`--heap-growing-percent=${percent}`);
}
