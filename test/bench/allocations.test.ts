// The bench's allocation summary from a heap sample (scripts/bench/heap-sampler.cjs): bytes allocated counted from the heap's
// rises between collections, collections per thousand requests, sites with built-ins charged to their caller, and the peak
// resident set split by what holds it. Handed-in figures.
import { allocatedBytes, memoryParts, summarizeAllocations } from '../../scripts/bench/allocations';
import type { GcEntry, HeapSample, SamplingNode } from '../../scripts/bench/allocations';

const gc = (gcType: string, before: number, after: number, cost = 1000): GcEntry => ({
  gcType,
  cost,
  beforeGC: { heapStatistics: { usedHeapSize: before } },
  afterGC: { heapStatistics: { usedHeapSize: after } },
});
const node = (functionName: string, url: string, selfSize: number, children: SamplingNode[] = []): SamplingNode => ({ callFrame: { functionName, url, lineNumber: 9 }, selfSize, children });

it('counts every rise of the heap between collections, from the window start to its end', () => {
  // 100 -> 400 (300), collected to 150; -> 350 (200), collected to 120; -> 170 at the end (50)
  expect(allocatedBytes({ usedAtStart: 100, usedAtStop: 170, gc: { statistics: [gc('Scavenge', 400, 150), gc('MarkSweepCompact', 350, 120)] } })).toBe(550);
  expect(allocatedBytes({ usedAtStart: 100, usedAtStop: 160, gc: { statistics: [] } })).toBe(60);
});

it('gives bytes and collections per request, and charges a built-in to the nearest caller with a file', () => {
  const sample: HeapSample = {
    usedAtStart: 0,
    usedAtStop: 4000,
    gc: { statistics: [gc('Scavenge', 6000, 2000, 2000), gc('Scavenge', 6000, 2000, 4000), gc('MarkSweepCompact', 2000, 1000, 50_000)] },
    profile: {
      head: node('(root)', '', 0, [
        node('send', 'file:///w/dist/http/app.js', 3000, [node('stringify', '', 5000)]),
        node('parseRequest', 'file:///w/node_modules/openapi-backend/router.js', 2000),
      ]),
    },
  };
  const s = summarizeAllocations(sample, 10);
  expect(s.bytes_per_request).toBe((6000 + 4000 + 0 + 3000) / 10);
  expect(s.sampled_bytes_per_request).toBe(1000);
  expect(s.young_gcs_per_1000).toBe(200);
  expect(s.young_gc_ms_mean).toBe(3);
  expect([s.old_gcs, s.old_gc_ms_total]).toEqual([1, 50]);
  expect(s.parts).toEqual([
    { part: 'src/http', bytes_per_request: 800, percent: 80 },
    { part: 'openapi-backend', bytes_per_request: 200, percent: 20 },
  ]);
  expect(s.top_sites.map((t) => t.site)).toEqual(['stringify in send dist/http/app.js:10', 'send dist/http/app.js:10', 'parseRequest node_modules/openapi-backend/router.js:10']);
});

it('splits the peak resident set into mapped files, the V8 heap with its young generation, external memory and the rest', () => {
  const MB = 1024 * 1024;
  const parts = memoryParts({
    rss_kb: 230 * 1024,
    anon_kb: 190 * 1024,
    file_kb: 40 * 1024,
    heap_total: 120 * MB,
    heap_used: 90 * MB,
    external: 10 * MB,
    array_buffers: 2 * MB,
    spaces: [
      { space: 'new_space', size: 16 * MB, used: 8 * MB },
      { space: 'old_space', size: 90 * MB, used: 70 * MB },
      { space: 'new_large_object_space', size: 1 * MB, used: 0 },
    ],
  });
  expect(parts).toEqual({ rss_mb: 230, file_mb: 40, heap_mb: 120, young_mb: 17, external_mb: 10, native_mb: 60 });
  // a kernel without the split says so instead of inventing it
  expect(memoryParts({ rss_kb: 1024, anon_kb: null, file_kb: null, heap_total: MB, heap_used: MB, external: 0, array_buffers: 0, spaces: [] })).toMatchObject({ file_mb: null, native_mb: null });
});

it('leaves the memory split out when the sample has none', () => {
  const s = summarizeAllocations({ usedAtStart: 0, usedAtStop: 0, gc: { statistics: [] }, profile: { head: node('(root)', '', 0) } }, 1);
  expect(s.memory).toBeNull();
});
