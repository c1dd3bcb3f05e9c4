// Readers of the daily reference feeds' documents (pure: text in, a day's rates or a reason out), tested on
// documents in the published forms:
// - ECB, https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml ("Euro foreign exchange reference
//   rates", the ECB's page of the same name): a gesmes:Envelope holding <Cube><Cube time='YYYY-MM-DD'>
//   <Cube currency='USD' rate='1.0823'/>...</Cube></Cube>, 1 EUR = rate units of currency, published on
//   TARGET business days around 16:00 CET (quotes are single in the ECB's file; double ones are read too).
// - Frankfurter, https://frankfurter.dev (API v1, `GET /v1/latest?base=EUR`): {"amount":1.0,"base":"EUR",
//   "date":"YYYY-MM-DD","rates":{"USD":1.0823,...}}; on a weekend or holiday it answers the last working day.
import { PIVOT } from '../domain/fx';

/** One day's rates of a feed: 1 EUR = rates[currency] units of currency, as decimal text. */
export interface FeedDay {
  /** the reference date, YYYY-MM-DD */
  date: string;
  rates: Record<string, string>;
}

export type FeedRead = { kind: 'day'; day: FeedDay } | { kind: 'unreadable'; reason: string };

/** At most 12 decimals and 18 integer digits: what fx_rates.rate (NUMERIC(30, 12)) holds. */
const RATE = /^(?:0|[1-9]\d{0,17})(?:\.\d{1,12})?$/;
const CURRENCY = /^[A-Z]{3}$/;
const DATE = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])$/;
/** A feed naming more currencies than this is not one of these feeds. */
const MAX_CURRENCIES = 200;

function unreadable(reason: string): FeedRead {
  return { kind: 'unreadable', reason };
}

function checked(date: string, entries: [string, string][]): FeedRead {
  if (!DATE.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`))) return unreadable(`reference date "${date.slice(0, 20)}" is not YYYY-MM-DD`);
  if (entries.length === 0) return unreadable('no rates in the document');
  if (entries.length > MAX_CURRENCIES) return unreadable(`${entries.length} rates: more than ${MAX_CURRENCIES}`);
  const rates: Record<string, string> = {};
  for (const [currency, rate] of entries) {
    if (!CURRENCY.test(currency)) return unreadable(`currency "${currency.slice(0, 10)}" is not a 3-letter code`);
    if (currency === PIVOT) continue;
    if (!RATE.test(rate) || !/[1-9]/.test(rate)) return unreadable(`rate "${rate.slice(0, 30)}" of ${currency} is not a positive decimal of at most 12 decimals`);
    rates[currency] = rate;
  }
  return { kind: 'day', day: { date, rates } };
}

const ATTR = (name: string) => new RegExp(`\\b${name}\\s*=\\s*(?:'([^']*)'|"([^"]*)")`);

/** The ECB's eurofxref-daily.xml. */
export function readEcbDaily(xml: string): FeedRead {
  if (!/<gesmes:Envelope\b/.test(xml) || !/<\/gesmes:Envelope>\s*$/.test(xml)) return unreadable('not a gesmes:Envelope document');
  const days = [...xml.matchAll(/<Cube\s+time\s*=\s*(?:'([^']*)'|"([^"]*)")\s*>([\s\S]*?)<\/Cube>/g)];
  if (days.length !== 1) return unreadable(`${days.length} Cube elements with a time: expected one`);
  const [, single, double, body] = days[0];
  const entries: [string, string][] = [];
  for (const m of body.matchAll(/<Cube\b([^>]*?)\/>/g)) {
    const c = ATTR('currency').exec(m[1]);
    const r = ATTR('rate').exec(m[1]);
    if (!c || !r) return unreadable('a Cube without currency or rate');
    entries.push([c[1] ?? c[2], r[1] ?? r[2]]);
  }
  return checked(single ?? double, entries);
}

/** Frankfurter's /latest?base=EUR answer, already parsed as JSON (undefined when it was not JSON). */
export function readFrankfurterLatest(json: unknown): FeedRead {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return unreadable('not a JSON object');
  const o = json as { amount?: unknown; base?: unknown; date?: unknown; rates?: unknown };
  if (o.base !== PIVOT) return unreadable(`base is ${JSON.stringify(o.base)?.slice(0, 20)}, not ${PIVOT}`);
  if (o.amount !== 1) return unreadable(`amount is ${JSON.stringify(o.amount)?.slice(0, 20)}, not 1`);
  if (typeof o.date !== 'string') return unreadable('no date');
  if (typeof o.rates !== 'object' || o.rates === null || Array.isArray(o.rates)) return unreadable('no rates object');
  const entries: [string, string][] = [];
  for (const [currency, rate] of Object.entries(o.rates)) {
    // a JSON number of at most 12 decimals prints back as written (String(1.0823) is "1.0823")
    if (typeof rate !== 'number' || !Number.isFinite(rate)) return unreadable(`rate of ${currency.slice(0, 10)} is not a number`);
    entries.push([currency, String(rate)]);
  }
  return checked(o.date, entries);
}
