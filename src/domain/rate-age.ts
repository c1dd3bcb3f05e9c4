// How old a market rate may be before a conversion refuses it (docs/contract/money.md, "Which wallet, and market rates"). A
// daily feed's rate is as old as the business days (Monday to Friday, in UTC) since its reference date: a
// Friday's rate is still one business day old on Monday, since no feed publishes at the weekend. An
// operator's rate is as old as the hours since it was set. Pure: the caller passes the clock.
import type { RateMaxAges } from '../config';
import type { FxRow, RateSource } from './fx';
import { DAY_MS } from './time';

export type { RateMaxAges } from '../config';

/** The defaults (docs/configuration.md): two business days for the feeds, no limit for the operator's rates. */
export const DEFAULT_MAX_AGES: RateMaxAges = { ecbBusinessDays: 2, frankfurterBusinessDays: 2, operatorHours: 0 };

/** Weekdays in (from's UTC date, to's UTC date]: 0 on the same day, 1 from a Friday to the Monday after. */
export function businessDaysAfter(from: Date, to: Date): number {
  const start = Math.floor(from.getTime() / DAY_MS);
  const end = Math.floor(to.getTime() / DAY_MS);
  let days = 0;
  // counted no further than a year: every max age is far shorter
  for (let d = start + 1; d <= end && days <= 366; d++) {
    const weekday = new Date(d * DAY_MS).getUTCDay();
    if (weekday !== 0 && weekday !== 6) days++;
  }
  return days;
}

export function isCurrent(source: RateSource, asOf: Date, now: Date, ages: RateMaxAges): boolean {
  switch (source) {
    case 'ecb':
      return businessDaysAfter(asOf, now) <= ages.ecbBusinessDays;
    case 'frankfurter':
      return businessDaysAfter(asOf, now) <= ages.frankfurterBusinessDays;
    case 'operator':
      return ages.operatorHours === 0 || now.getTime() - asOf.getTime() <= ages.operatorHours * 3_600_000;
    case 'sandbox':
      return true;
  }
}

/** A rate's age in whole seconds since its as_of (0 for an as_of in the future): what the watch and the metric show. */
export function ageSeconds(asOf: Date, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - asOf.getTime()) / 1000));
}

/** A row-level check for chooseRate: rows without an as_of (built by hand) are current. */
export function rowCurrent(now: Date, ages: RateMaxAges): (row: FxRow) => boolean {
  return (row) => !row.as_of || isCurrent(row.source ?? 'operator', new Date(row.as_of), now, ages);
}
