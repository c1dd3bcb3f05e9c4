// The fixed-rate sweep: the open-loop sender at a rising offered load, a few seconds a step,
// until a step misses (p99 over the limit, an error, or fewer answers than were sent); the highest rate
// that held is the figure. The stopping rule is here apart from any clock, so it is tested alone.

export interface SweepSettings {
  /** the first offered rate, req/s */
  from: number;
  /** added to the rate at each step */
  step: number;
  /** no step above this rate: the sweep ends there even if every step held */
  max: number;
  /** the p99 a step must stay under, ms */
  p99LimitMs: number;
}

/** What one step measured: the open-loop sender's figures at one offered rate. */
export interface SweepStep {
  offered_per_s: number;
  sent: number;
  answered_2xx: number;
  errors: number;
  p99_ms: number;
}

export interface SweepFigures {
  /** the highest offered rate whose step held; null when the first step already missed */
  highest_held_per_s: number | null;
  p99_limit_ms: number;
  /** why the sweep stopped */
  stopped: 'missed' | 'max';
  steps: SweepStep[];
}

/** Whether a step held: every request answered 2xx, none in error, and p99 strictly under the limit. */
export function held(s: SweepStep, p99LimitMs: number): boolean {
  return s.errors === 0 && s.answered_2xx === s.sent && s.p99_ms < p99LimitMs;
}

/** The rate of the next step after `done`, or null when the sweep is over (a step missed, or max reached). */
export function nextRate(settings: SweepSettings, done: readonly SweepStep[]): number | null {
  const last = done[done.length - 1];
  if (!last) return settings.from <= settings.max ? settings.from : null;
  if (!held(last, settings.p99LimitMs)) return null;
  const next = last.offered_per_s + settings.step;
  return next <= settings.max ? next : null;
}

/** Runs `measure` at each rate nextRate gives, in turn, and says the highest rate that held. */
export async function sweep(settings: SweepSettings, measure: (rate: number) => Promise<SweepStep>): Promise<SweepFigures> {
  if (!(settings.from > 0 && settings.step > 0 && settings.max > 0 && settings.p99LimitMs > 0)) {
    throw new Error(`the sweep needs positive settings, got ${JSON.stringify(settings)}`);
  }
  const steps: SweepStep[] = [];
  for (let rate = nextRate(settings, steps); rate !== null; rate = nextRate(settings, steps)) steps.push(await measure(rate));
  const holding = steps.filter((s) => held(s, settings.p99LimitMs));
  const last = steps[steps.length - 1];
  return {
    // steps only rise and the sweep stops at the first miss, so every held step is before it
    highest_held_per_s: holding.length > 0 ? holding[holding.length - 1].offered_per_s : null,
    p99_limit_ms: settings.p99LimitMs,
    stopped: last && !held(last, settings.p99LimitMs) ? 'missed' : 'max',
    steps,
  };
}
