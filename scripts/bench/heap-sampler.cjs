// Preloaded into the service by `npm run bench -- --allocations` (node --require): on the first SIGUSR2 it
// starts V8's sampling heap profiler (objects a collection has freed kept in the profile, so it shows what
// was allocated, not what survived) and a GC profiler; on the second it stops both and writes them, with
// the heap in use at both ends, to HEAP_SAMPLE_OUT. Without HEAP_SAMPLE_OUT it does nothing. With
// HEAP_SAMPLE_SURVIVORS=1 (`--allocations --survivors`) what a young collection freed is left out, so the
// profile shows what outlived the young generation: what is promoted to the old one, where it was allocated.
// It also writes what the process's highest resident memory was made of (memory-peak.cjs).
'use strict';
const { Session } = require('node:inspector');
const v8 = require('node:v8');
const { renameSync, writeFileSync } = require('node:fs');

const out = process.env.HEAP_SAMPLE_OUT;
/** bytes between samples: V8 scales each sample up, so the profile estimates every byte allocated */
const SAMPLING_INTERVAL_BYTES = 4096;

const memory = require('./memory-peak.cjs');

if (out) {
  memory.start(null);
  const session = new Session();
  session.connect();
  // a session in the process's own thread answers before post() returns
  const post = (method, params) => {
    let answer;
    session.post(method, params, (err, result) => {
      answer = { err, result };
    });
    if (!answer) throw new Error(`${method}: no answer`);
    if (answer.err) throw answer.err;
    return answer.result;
  };
  let running = null;
  process.on('SIGUSR2', () => {
    if (!running) {
      const gc = new v8.GCProfiler();
      gc.start();
      post('HeapProfiler.enable');
      post('HeapProfiler.startSampling', { samplingInterval: SAMPLING_INTERVAL_BYTES, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: process.env.HEAP_SAMPLE_SURVIVORS !== '1' });
      running = { gc, usedAtStart: v8.getHeapStatistics().used_heap_size };
      writeFileSync(`${out}.started`, '');
      return;
    }
    const usedAtStop = v8.getHeapStatistics().used_heap_size;
    const { profile } = post('HeapProfiler.stopSampling');
    const gc = running.gc.stop();
    // whole or not at all: the bench reads the file as soon as it exists
    writeFileSync(`${out}.partial`, JSON.stringify({ usedAtStart: running.usedAtStart, usedAtStop, gc, profile, memoryPeak: memory.peak() }));
    renameSync(`${out}.partial`, out);
    running = null;
  });
}
