// Each currency's own minor unit (ISO 4217 exponent), the one table of it: vendors are sent amounts at
// this precision (processors/amounts.ts), and the dashboard and the hosted payment pages show money at it
// ("25,000 UGX", "12.50 USD"). The API itself keeps 2 decimals in every currency (domain/money.ts). Pure,
// importing only money.ts (pure too), so the dashboard's bundle takes it as it is.
import { formatMinor, SCALE } from './money';

/** ISO 4217 currencies whose minor unit is 0 (the mobile-money ones first). */
export const ZERO_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set([
  'UGX', 'RWF', 'XAF', 'XOF', 'GNF', 'BIF', 'KMF', 'DJF', 'CLP', 'ISK', 'JPY', 'KRW', 'PYG', 'VND', 'VUV', 'XPF',
]);

/** Decimal places of a currency by ISO 4217 (the three-decimal ones are not taken by this API: 2). */
export function isoDecimals(currency: string): number {
  return ZERO_DECIMAL_CURRENCIES.has(currency) ? 0 : 2;
}

/**
 * The decimal places to show an amount with: the currency's own, unless the amount has a fraction finer
 * than that (the API takes 2 decimals in every currency), which is then shown in full, never rounded away.
 * `hundredths` is the amount in hundredths (the API's minor units), as an integer.
 */
export function shownDecimals(hundredths: bigint | number, currency: string): number {
  const own = isoDecimals(currency);
  return own === 0 && BigInt(hundredths) % 100n !== 0n ? 2 : own;
}

/** 2500000n hundredths -> "25000" in UGX, 1250n -> "12.50" in USD: plain text for the hosted pages and files. */
export function formatIn(hundredths: bigint, currency: string): string {
  const text = formatMinor(hundredths);
  // the currency's own unit only when the fraction is zero (shownDecimals): drop the ".00"
  return shownDecimals(hundredths, currency) === 0 ? text.slice(0, -(SCALE + 1)) : text;
}

/** 2500000n hundredths -> "25,000" in UGX, 125050n -> "1,250.50" in USD: formatIn with thousands grouped, for people. */
export function groupedIn(hundredths: bigint, currency: string): string {
  const [whole, fraction] = formatIn(hundredths, currency).split('.');
  const sign = whole.startsWith('-') ? '-' : '';
  const grouped = whole.slice(sign.length).replace(/\B(?=(\d{3})+$)/g, ',');
  return `${sign}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}

/**
 * Money as people read it, in e-mails, the hosted pages and the dashboard: the currency's own decimals
 * (formatIn), thousands grouped, the currency after: 2500000n in UGX -> "25,000 UGX", 125050n in USD ->
 * "1,250.50 USD". Files and the API keep plain decimal text; this is for reading only.
 */
export function moneyText(hundredths: bigint, currency: string): string {
  return `${groupedIn(hundredths, currency)} ${currency}`;
}
