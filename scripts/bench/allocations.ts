// What the service allocates per request, from what scripts/bench/heap-sampler.cjs wrote over a measured
// window: bytes per request counted from the GC profiler's heap figures (exact for the JavaScript heap), the
// sampling profiler's estimate of the same, young- and old-generation collections per thousand requests with
// their pauses, the allocation sites that account for most bytes, and what the process's peak resident memory
// was made of. Pure: test/bench/allocations.test.ts.
import { partOf } from './profile';

interface HeapStatistics {
  usedHeapSize: number;
}

export interface GcEntry {
  gcType: string;
  /** microseconds */
  cost: number;
  beforeGC: { heapStatistics: HeapStatistics };
  afterGC: { heapStatistics: HeapStatistics };
}

export interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

/** The process's memory when its resident set was highest, as the preload read it. */
export interface MemoryPeak {
  rss_kb: number;
  /** the kernel's split of the resident set: anonymous pages, and pages of mapped files (node's own code, libraries) */
  anon_kb: number | null;
  file_kb: number | null;
  /** V8's account, bytes */
  heap_total: number;
  heap_used: number;
  external: number;
  array_buffers: number;
  spaces: { space: string; size: number; used: number }[];
}

/** What the preload writes. */
export interface HeapSample {
  usedAtStart: number;
  usedAtStop: number;
  gc: { statistics: GcEntry[] };
  profile: { head: SamplingNode };
  memoryPeak?: MemoryPeak | null;
}

/** Peak resident memory split into what holds it, in MB; `native` is anonymous memory outside V8's heap (malloc, stacks, buffers). */
export interface MemoryParts {
  rss_mb: number;
  file_mb: number | null;
  heap_mb: number;
  young_mb: number;
  external_mb: number;
  native_mb: number | null;
}

const toMb = (bytes: number) => Math.round(bytes / 104857.6) / 10;

/** Where the peak RSS went: mapped files, V8's heap (the young generation within it), external memory, and the rest. */
export function memoryParts(p: MemoryPeak): MemoryParts {
  const young = p.spaces.filter((s) => s.space === 'new_space' || s.space === 'new_large_object_space').reduce((a, s) => a + s.size, 0);
  return {
    rss_mb: toMb(p.rss_kb * 1024),
    file_mb: p.file_kb === null ? null : toMb(p.file_kb * 1024),
    heap_mb: toMb(p.heap_total),
    young_mb: toMb(young),
    external_mb: toMb(p.external),
    native_mb: p.anon_kb === null ? null : toMb(p.anon_kb * 1024 - p.heap_total - p.external),
  };
}

export interface AllocationFigures {
  requests: number;
  /** allocated on the JavaScript heap in the window (what grew between collections), per request */
  bytes_per_request: number;
  /** the sampling profiler's estimate of the same */
  sampled_bytes_per_request: number;
  young_gcs_per_1000: number;
  young_gc_ms_mean: number;
  old_gcs: number;
  old_gc_ms_total: number;
  parts: { part: string; bytes_per_request: number; percent: number }[];
  top_sites: { site: string; bytes_per_request: number; percent: number }[];
  /** where the peak RSS went, when the preload measured it */
  memory: MemoryParts | null;
}

/** Bytes allocated in the window: the heap only grows between collections, so every rise counts. */
export function allocatedBytes(s: Pick<HeapSample, 'usedAtStart' | 'usedAtStop' | 'gc'>): number {
  let used = s.usedAtStart;
  let total = 0;
  for (const e of s.gc.statistics) {
    total += Math.max(0, e.beforeGC.heapStatistics.usedHeapSize - used);
    used = e.afterGC.heapStatistics.usedHeapSize;
  }
  return total + Math.max(0, s.usedAtStop - used);
}

const YOUNG = new Set(['Scavenge', 'MinorMarkCompact', 'MinorMarkSweep']);

/** Where a frame is, as a reader finds it: file below node_modules or src, and 1-based line. */
function siteOf(f: SamplingNode['callFrame']): string {
  const where = f.url ? ` ${f.url.replace(/^file:\/\//, '').replace(/^.*\/(node_modules|src|dist)\//, '$1/')}:${f.lineNumber + 1}` : '';
  return `${f.functionName || '(anonymous)'}${where}`;
}

export function summarizeAllocations(s: HeapSample, requests: number, top = 15): AllocationFigures {
  const per = (bytes: number) => Math.round(bytes / Math.max(1, requests));
  const sites = new Map<string, number>();
  const parts = new Map<string, number>();
  let sampled = 0;
  // a built-in (no url: JSON.stringify, String.prototype.replace) is charged to the nearest caller with one
  const walk = (n: SamplingNode, caller: SamplingNode['callFrame'] | null) => {
    const frame = n.callFrame.url || !caller ? n.callFrame : caller;
    if (n.selfSize > 0) {
      sampled += n.selfSize;
      const site = frame === n.callFrame ? siteOf(frame) : `${n.callFrame.functionName || '(native)'} in ${siteOf(frame)}`;
      sites.set(site, (sites.get(site) ?? 0) + n.selfSize);
      const part = partOf(frame.url, frame.functionName);
      parts.set(part, (parts.get(part) ?? 0) + n.selfSize);
    }
    for (const c of n.children) walk(c, n.callFrame.url ? n.callFrame : caller);
  };
  walk(s.profile.head, null);
  const rows = (m: Map<string, number>, limit: number) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, limit).map(([k, bytes]) => ({ k, bytes_per_request: per(bytes), percent: Math.round((bytes / Math.max(1, sampled)) * 1000) / 10 }));
  const young = s.gc.statistics.filter((e) => YOUNG.has(e.gcType));
  const old = s.gc.statistics.filter((e) => !YOUNG.has(e.gcType));
  const ms = (us: number) => Math.round(us / 10) / 100;
  return {
    requests,
    bytes_per_request: per(allocatedBytes(s)),
    sampled_bytes_per_request: per(sampled),
    young_gcs_per_1000: Math.round((young.length / Math.max(1, requests)) * 10000) / 10,
    young_gc_ms_mean: young.length ? ms(young.reduce((a, e) => a + e.cost, 0) / young.length) : 0,
    old_gcs: old.length,
    old_gc_ms_total: ms(old.reduce((a, e) => a + e.cost, 0)),
    parts: rows(parts, 12).map(({ k, ...r }) => ({ part: k, ...r })),
    top_sites: rows(sites, top).map(({ k, ...r }) => ({ site: k, ...r })),
    memory: s.memoryPeak ? memoryParts(s.memoryPeak) : null,
  };
}
