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
