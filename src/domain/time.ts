/** The API's date form: YYYY-MM-DDTHH:MM:SS in UTC. */
export function apiTime(d: Date): string {
  return d.toISOString().slice(0, 19);
}

export function apiTimeOrNull(d: Date | null | undefined): string | null {
  return d ? apiTime(d) : null;
}
