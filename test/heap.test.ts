// Proves the service bounds its old generation's growth: the setting reaches V8 as its flag, 0 leaves V8's own
// rule, and on the Node that runs the tests the flag is honoured: a process that keeps promoting short-lived
// objects holds a much smaller old generation with the bound than without (the peak of its size, not a time).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { limitHeapGrowth } from '../src/heap';

describe('the heap growth bound', () => {
  it('passes the percentage to V8 as its flag, and nothing when it is 0', () => {
    const seen: string[] = [];
    limitHeapGrowth(50, (f) => seen.push(f));
    limitHeapGrowth(0, (f) => seen.push(f));
    expect(seen).toEqual(['--heap-growing-percent=50']);
  });

  // Objects that live a while (a sliding window of 200,000) are promoted and die in the old generation, as a
  // request's objects do when they wait on the database across a young collection.
  const peakOldMb = (percent: number): number => {
    const script = `
      const { limitHeapGrowth } = require(${JSON.stringify(path.join(__dirname, '..', 'src', 'heap.ts'))});
      limitHeapGrowth(${percent});
      const v8 = require('node:v8');
      const old = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_size;
      let keep = []; let peak = 0;
      for (let i = 0; i < 2e6; i++) {
        keep.push({ a: 'x' + i, b: [i, i + 1] });
        if (keep.length > 200000) keep = keep.slice(100000);
        if (i % 5000 === 0) peak = Math.max(peak, old());
      }
      process.stdout.write(String(peak / 1048576));`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', cwd: path.join(__dirname, '..') });
    expect(run.stderr).toBe('');
    return Number(run.stdout);
  };

  it('keeps a promoting process far smaller than V8 left alone does', () => {
    const alone = peakOldMb(0);
    const bounded = peakOldMb(20);
    expect(alone).toBeGreaterThan(0);
    expect(bounded).toBeLessThan(alone * 0.8);
  }, 60_000);
});
