// Preloaded into the measured service by `npm run bench` (node --require): every 100 ms it reads the process's
// resident memory and keeps, at its highest, what it was made of: the kernel's anonymous and file-backed parts
// (/proc/self/status) and V8's own account (its heap spaces, external memory). With MEMORY_PEAK_OUT set it
// writes that record to the file each time the peak rises, so the bench can say where the peak RSS went without
// stopping the process. heap-sampler.cjs reads the same record through `peak()`.
'use strict';
const v8 = require('node:v8');
const { readFileSync, renameSync, writeFileSync } = require('node:fs');

/** kB of a /proc/self/status field, or null */
const statusKb = (text, field) => {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return m ? Number(m[1]) : null;
};

let highest = null;
let written = null;

/** Reads memory once; true when this is a new peak. */
const sample = () => {
  let status;
  try {
    status = readFileSync('/proc/self/status', 'utf8');
  } catch {
    return false;
  }
  const rssKb = statusKb(status, 'VmRSS');
  if (rssKb === null || (highest && rssKb <= highest.rss_kb)) return false;
  const usage = process.memoryUsage();
  highest = {
    rss_kb: rssKb,
    anon_kb: statusKb(status, 'RssAnon'),
    file_kb: statusKb(status, 'RssFile'),
    heap_total: usage.heapTotal,
    heap_used: usage.heapUsed,
    external: usage.external,
    array_buffers: usage.arrayBuffers,
    spaces: v8.getHeapSpaceStatistics().map((s) => ({ space: s.space_name, size: s.space_size, used: s.space_used_size })),
  };
  return true;
};

let timer = null;
/** Starts sampling (once); with a file, the record is written there whenever the peak rises. */
const start = (out) => {
  if (timer) return;
  timer = setInterval(() => {
    if (sample() && out && highest !== written) {
      // whole or not at all: the bench may read it at any moment
      writeFileSync(`${out}.partial`, JSON.stringify(highest));
      renameSync(`${out}.partial`, out);
      written = highest;
    }
  }, 100);
  timer.unref();
};

if (process.env.MEMORY_PEAK_OUT) start(process.env.MEMORY_PEAK_OUT);

module.exports = {
  start,
  peak: () => {
    sample();
    return highest;
  },
};
