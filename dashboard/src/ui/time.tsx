// Times as the viewer reads them: the API's UTC timestamp shown in the browser's own time zone, with
// the zone's name, and the UTC time on hover (the title) and in the element's dateTime.

/** The API's `YYYY-MM-DDTHH:MM:SS[Z]` (UTC, the `Z` optional as the filters allow) as a Date; null when unreadable. */
export function dateOf(at: string): Date | null {
  const d = new Date(/(Z|[+-]\d\d:\d\d)$/.test(at) ? at : `${at}Z`);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** `YYYY-MM-DD HH:MM:SS UTC`, the title of every time. */
export function utcText(d: Date): string {
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** `YYYY-MM-DD HH:MM:SS <zone>` in `timeZone` (the viewer's when not given), e.g. `2025-11-25 13:15:05 GMT+3`. */
export function localText(d: Date, timeZone?: string): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  }).formatToParts(d);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}:${part('second')} ${part('timeZoneName')}`;
}

/** A time of the API in the viewer's time zone; its UTC time on hover. */
export function Time({ at }: { at: string | null }) {
  if (!at) return <span className="muted">—</span>;
  const d = dateOf(at);
  if (!d) return <time>{at}</time>;
  return (
    <time dateTime={d.toISOString().replace(/\.\d{3}Z$/, 'Z')} title={utcText(d)}>
      {localText(d)}
    </time>
  );
}
