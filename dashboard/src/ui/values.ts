// What a form sends: numbers as numbers when they read as numbers, otherwise the text as typed, so
// the API (not the dashboard) judges it and its own words appear next to the field.
export const PAYMENT_METHODS = ['MOBILE_MONEY', 'CARD', 'BANK', 'CRYPTO'] as const;
export const STATUSES = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED', 'REVERSED'] as const;

export function asNumber(text: string): number {
  const t = text.trim();
  return (t !== '' && Number.isFinite(Number(t)) ? Number(t) : t) as number;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** A Date as a datetime-local value (`YYYY-MM-DDTHH:MM`) in the viewer's time zone. */
export function localMinute(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The API's UTC timestamp (`YYYY-MM-DDTHH:MM:SS`, `Z` optional) as a datetime-local value in the viewer's zone; '' when unreadable. */
export function localInputOf(utc: string | undefined): string {
  if (!utc) return '';
  const d = new Date(/(Z|[+-]\d\d:\d\d)$/.test(utc) ? utc : `${utc}Z`);
  return Number.isNaN(d.getTime()) ? '' : localMinute(d);
}

/**
 * A datetime-local value (the viewer's wall time) as the API's UTC `YYYY-MM-DDTHH:MM:SSZ`: the minute's first
 * second for a window's start, its last for its end. Text that is no time goes as typed, for the API to judge.
 */
export function utcOf(local: string, end: boolean): string {
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d$/.test(local)) return local;
  const d = new Date(`${local}:${end ? '59' : '00'}`); // no zone: the browser reads it in the viewer's own
  return Number.isNaN(d.getTime()) ? local : `${d.toISOString().slice(0, 19)}Z`;
}

/** The viewer's time zone as the filters name it, e.g. `GMT+3`, `UTC`. */
export function zoneName(at = new Date()): string {
  return new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' }).formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ?? 'local time';
}

/** A whole UTC day as the reports of days take it (the statement, the settlement report): `yyyy-mm-dd` text. */
export const UTC_DAY = /^\d{4}-\d\d-\d\d$/;
/** Why those fields are text: a browser's date picker shows its own format (12/01/2026), which is no UTC day. */
export const UTC_DAY_HINT = 'A day in UTC, written yyyy-mm-dd (e.g. 2026-12-01): not the browser’s own date format or time zone.';
export const todayUtc = () => new Date().toISOString().slice(0, 10);
