// How much memory the service process keeps between full garbage collections. Under load most of what a
// request allocates dies young, but what is still waiting on the database when the young generation is
// collected is promoted, and V8 lets the old generation grow to up to four times what survived its last full
// collection before it collects again. A steady service does not need that headroom: bounding the growth to
// HEAP_GROWING_PERCENT (50 % by default) keeps the process's resident memory under load about 80 MB lower
// for a few more full collections, most of whose marking runs beside the requests (docs/performance.md,
// "Peak memory"). The flag is read at every full collection, so setting it once the process runs takes effect
// from the next one.
import v8 from 'node:v8';

/** Bounds the old generation's growth to `percent` past its survivors; 0 leaves V8's own rule. */
export function limitHeapGrowth(percent: number, setFlags: (flags: string) => void = v8.setFlagsFromString): void {
  if (percent > 0) setFlags(`--heap-growing-percent=${percent}`);
}
