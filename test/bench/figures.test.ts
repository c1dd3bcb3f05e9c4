// Proves the benchmark's arithmetic and settings: percentiles, the --scale levels, the --export settings, and the profile summary
// (self time inside the measured window only, grouped into parts). The benchmark itself is `npm run bench`; it times, tests never do.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cpuDelta, percentile, setting } from '../../scripts/bench/lib';
import { partOf, summarizeProfile } from '../../scripts/bench/profile';
import { scaleLevels } from '../../scripts/bench/scale';
import { exportSettings } from '../../scripts/bench/export';

describe('percentile', () => {
  it('takes the nearest rank of an ascending list', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('CPU between two readings', () => {
  it('adds what each process used since the first reading, a process first seen later from zero, one gone as nothing', () => {
    const before = new Map([[10, 100], [11, 50], [12, 70]]);
    const after = new Map([[10, 160], [11, 50], [13, 25], [12, 0]]);
    expect(cpuDelta(before, after)).toBe(60 + 0 + 25 + 0);
    expect(cpuDelta(new Map(), new Map())).toBe(0);
  });
});

describe('bench settings', () => {
  it('takes a positive number, falls back when unset, and refuses anything else by name', () => {
    expect(setting({ BENCH_DURATION: '5' }, 'BENCH_DURATION', 10)).toBe(5);
    expect(setting({}, 'BENCH_DURATION', 10)).toBe(10);
    expect(setting({ BENCH_DURATION: '' }, 'BENCH_DURATION', 10)).toBe(10);
    for (const bad of ['0', '-3', 'ten', 'Infinity']) {
      expect(() => setting({ BENCH_DURATION: bad }, 'BENCH_DURATION', 10)).toThrow(`BENCH_DURATION must be a positive number, got "${bad}"`);
    }
  });
});

describe('--scale levels', () => {
  it('are 0, 1 and 10 million unless BENCH_SCALE_LEVELS lists others, in ascending order', () => {
    expect(scaleLevels(undefined)).toEqual([0, 1_000_000, 10_000_000]);
    expect(scaleLevels('5000, 0,200')).toEqual([0, 200, 5000]);
  });

  it('refuses anything but whole numbers, naming the setting', () => {
    for (const bad of ['1e6', '-1', '', '1,,2', 'ten']) {
      expect(() => scaleLevels(bad)).toThrow(`BENCH_SCALE_LEVELS must be whole numbers separated by commas, got "${bad}"`);
    }
  });
});

describe('--export settings', () => {
  it('export a million rows and read the first 100,000 slowly unless told otherwise', () => {
    expect(exportSettings({})).toEqual({ rows: 1_000_000, slowRows: 100_000 });
    expect(exportSettings({ BENCH_EXPORT_ROWS: '5000', BENCH_EXPORT_SLOW_ROWS: '100' })).toEqual({ rows: 5000, slowRows: 100 });
    expect(() => exportSettings({ BENCH_EXPORT_ROWS: 'many' })).toThrow('BENCH_EXPORT_ROWS must be a positive number, got "many"');
  });
});

describe('profile summary', () => {
  it('names the part of the program a frame belongs to', () => {
    expect(partOf('file:///w/node_modules/pg-promise/lib/query.js', 'query')).toBe('pg-promise');
    expect(partOf('file:///w/node_modules/@redocly/cli/lib/x.js', 'f')).toBe('@redocly/cli');
    expect(partOf('file:///w/src/ledger/ledger.ts', 'creditValues')).toBe('src/ledger');
    expect(partOf('file:///w/src/server.ts', 'startService')).toBe('src');
    expect(partOf('node:internal/http', 'write')).toBe('node core');
    expect(partOf('', '(idle)')).toBe('idle (waiting for I/O)');
    expect(partOf('', '(garbage collector)')).toBe('garbage collector');
    // the build, as npm start runs it, counts as the sources' wing
    expect(partOf('file:///w/dist/collections/routing-turns.js', 'take')).toBe('src/collections');
    expect(partOf('file:///w/dist/main.js', 'main')).toBe('src');
  });

  it('sums self time by part, counting only samples inside the window', () => {
    const frame = (id: number, functionName: string, url: string) => ({ id, callFrame: { functionName, url, lineNumber: 0 } });
    const profile = {
      startTime: 0,
      endTime: 10_000,
      nodes: [frame(1, 'query', 'file:///w/node_modules/pg-promise/lib/q.js'), frame(2, 'price', 'file:///w/src/merchants/pricing.ts'), frame(3, '(idle)', '')],
      // samples at t = 1000 (start-up, outside), 4000, 5000, 6000 and 9500 (shut-down, outside)
      samples: [2, 1, 1, 2, 3],
      timeDeltas: [1000, 3000, 1000, 1000, 3500],
    };
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'paycollect-profile-')), 'p.cpuprofile');
    writeFileSync(file, JSON.stringify(profile));
    const s = summarizeProfile(file, { fromEndUs: 7000, toEndUs: 3000 });
    expect(s.total_ms).toBe(5);
    expect(s.parts).toEqual([
      { part: 'pg-promise', ms: 4, percent: 80 },
      { part: 'src/merchants', ms: 1, percent: 20 },
    ]);
    expect(s.top_functions[0].fn).toMatch(/^query node_modules\/pg-promise\/lib\/q.js:1$/);
  });
});
