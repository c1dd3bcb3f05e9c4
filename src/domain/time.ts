/** The API's date form: YYYY-MM-DDTHH:MM:SSZ in UTC (whole seconds; the Z says UTC to every tool). */
export function apiTime(d: Date): string {
  return d.toISOString().slice(0, 19) + 'Z';
}

/** A time as emails print it, for people: `YYYY-MM-DD HH:MM:SS UTC` (whole seconds, the zone spelt out). */
export function emailTime(d: Date): string {
  return `${apiTime(d).slice(0, 19).replace('T', ' ')} UTC`;
}

export function apiTimeOrNull(d: Date | null | undefined): string | null {
  return d ? apiTime(d) : null;
}

/** A time filter of a query, `YYYY-MM-DDTHH:MM:SS` with or without `Z`: always UTC. */
export function parseApiTime(text: string): Date {
  return new Date(text.endsWith('Z') ? text : text + 'Z');
}

export const DAY_MS = 86_400_000;
/**
 * A UTC day's statement is read once the day is this many days past: a payment still pending at midnight
 * (a store's invoice in its monitoring window, a day by default) has settled by then.
 */
export const SETTLED_AFTER_DAYS = 2;

/** A UTC day read as a statement: its date (YYYY-MM-DD) is its id, it is settled when it ends, and it covers the day whole. */
export interface SettledDay {
  id: string;
  settledAt: Date;
  covers: { from: Date; to: Date };
}

/** The UTC days from the one holding `from` to the last one SETTLED_AFTER_DAYS past at `now`, oldest first (none when `from` is later). */
export function settledDays(from: Date, now: Date): SettledDay[] {
  const days: SettledDay[] = [];
  const last = Math.floor(now.getTime() / DAY_MS) - SETTLED_AFTER_DAYS;
  for (let d = Math.floor(from.getTime() / DAY_MS); d <= last; d++) {
    days.push({ id: new Date(d * DAY_MS).toISOString().slice(0, 10), settledAt: new Date((d + 1) * DAY_MS), covers: { from: new Date(d * DAY_MS), to: new Date((d + 1) * DAY_MS - 1) } });
  }
  return days;
}

/** The start of the UTC day a statement id names (YYYY-MM-DD, a real date), or null when it names none. */
export function dayStart(id: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(id)) return null;
  const start = new Date(`${id}T00:00:00Z`);
  return !Number.isNaN(start.getTime()) && start.toISOString().slice(0, 10) === id ? start : null;
}
