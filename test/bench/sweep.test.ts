// The bench's fixed-rate sweep stops at the first step that misses and names the last step that held. The
// steps here are figures handed in, not measured: nothing is timed.
import { held, nextRate, sweep } from '../../scripts/bench/sweep';
import type { SweepStep } from '../../scripts/bench/sweep';

const settings = { from: 500, step: 250, max: 2000, p99LimitMs: 25 };
const ok = (rate: number, p99 = 10): SweepStep => ({ offered_per_s: rate, sent: rate * 3, answered_2xx: rate * 3, errors: 0, p99_ms: p99 });

/** A measure that answers from a table of rate -> step, and records the rates it was asked for. */
function measured(byRate: Record<number, SweepStep>) {
  const asked: number[] = [];
  return {
    asked,
    measure: async (rate: number) => {
      asked.push(rate);
      const s = byRate[rate];
      if (!s) throw new Error(`the sweep asked for ${rate} req/s, past where it should have stopped`);
      return s;
    },
  };
}

it('a step holds only with every request answered 2xx, no error and p99 under the limit', () => {
  expect(held(ok(500, 24.9), 25)).toBe(true);
  expect(held(ok(500, 25), 25)).toBe(false);
  expect(held({ ...ok(500), errors: 1, answered_2xx: 1499 }, 25)).toBe(false);
  // an answer that never came (counted neither 2xx nor error) is a miss too
  expect(held({ ...ok(500), answered_2xx: 1499 }, 25)).toBe(false);
});

it('rises by the step from the first rate and stops at the first step whose p99 reaches the limit', async () => {
  const m = measured({ 500: ok(500, 8), 750: ok(750, 12), 1000: ok(1000, 21), 1250: ok(1250, 40), 1500: ok(1500, 9) });
  const r = await sweep(settings, m.measure);
  // 1500 would have held again (a lucky step), but the sweep never goes past the first miss
  expect(m.asked).toEqual([500, 750, 1000, 1250]);
  expect(r.highest_held_per_s).toBe(1000);
  expect(r.stopped).toBe('missed');
  expect(r.steps.map((s) => s.offered_per_s)).toEqual([500, 750, 1000, 1250]);
});

it('stops at a step with errors even when its p99 is low', async () => {
  const m = measured({ 500: ok(500), 750: { ...ok(750, 3), errors: 5, answered_2xx: 2245 } });
  const r = await sweep(settings, m.measure);
  expect(m.asked).toEqual([500, 750]);
  expect(r.highest_held_per_s).toBe(500);
  expect(r.stopped).toBe('missed');
});

it('says none held when the first step misses', async () => {
  const m = measured({ 500: ok(500, 30) });
  const r = await sweep(settings, m.measure);
  expect(m.asked).toEqual([500]);
  expect(r.highest_held_per_s).toBeNull();
  expect(r.stopped).toBe('missed');
});

it('ends at the maximum rate when every step holds, and says so', async () => {
  const m = measured(Object.fromEntries([500, 750, 1000, 1250, 1500, 1750, 2000].map((r) => [r, ok(r)])));
  const r = await sweep(settings, m.measure);
  expect(m.asked).toEqual([500, 750, 1000, 1250, 1500, 1750, 2000]);
  expect(r.highest_held_per_s).toBe(2000);
  expect(r.stopped).toBe('max');
  expect(nextRate({ ...settings, max: 900 }, [ok(500), ok(750)])).toBeNull();
});

it('refuses settings that would never end or never start, before measuring anything', async () => {
  const m = measured({});
  await expect(sweep({ ...settings, step: 0 }, m.measure)).rejects.toThrow('positive settings');
  await expect(sweep({ ...settings, from: -1 }, m.measure)).rejects.toThrow('positive settings');
  expect(m.asked).toEqual([]);
});
