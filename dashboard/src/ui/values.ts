// What a form sends: numbers as numbers when they read as numbers, otherwise the text as typed, so
// the API (not the dashboard) judges it and its own words appear next to the field.
export const PAYMENT_METHODS = ['MOBILE_MONEY', 'CARD', 'BANK', 'CRYPTO'] as const;
export const STATUSES = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'] as const;

export function asNumber(text: string): number {
  const t = text.trim();
  return (t !== '' && Number.isFinite(Number(t)) ? Number(t) : t) as number;
}

/** `YYYY-MM-DDTHH:MM` from a datetime-local input, as the API's `YYYY-MM-DDTHH:MM:SS`. */
export function asTimestamp(local: string, end: boolean): string {
  return local.length === 16 ? `${local}:${end ? '59' : '00'}` : local;
}

/** The UTC minute of a Date, as a datetime-local value. */
export function localMinute(d: Date): string {
  return d.toISOString().slice(0, 16);
}
