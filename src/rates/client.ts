// The daily feeds over HTTP, in the processors' transport (src/processors/transport.ts): one GET with its own
// deadline, and every way it can go wrong said in a few words for rate_sources.last_error. What the
// document means is read by transformers.ts.
import type { RateFeed, RateSettings } from '../config';
import { callVendor, describeAnswer } from '../processors/transport';
import { readEcbDaily, readFrankfurterLatest } from './transformers';
import type { FeedDay } from './transformers';

export type FeedAnswer = { kind: 'day'; day: FeedDay } | { kind: 'failed'; error: string };

/** Where each feed's day is asked for, under its configured base URL. */
export function feedUrl(feed: RateFeed, baseUrl: string): string {
  return feed === 'ecb' ? `${baseUrl}/eurofxref-daily.xml` : `${baseUrl}/latest?base=EUR`;
}

export async function fetchFeedDay(feed: RateFeed, settings: Pick<RateSettings, 'baseUrls' | 'timeoutMs'>): Promise<FeedAnswer> {
  const accept = feed === 'ecb' ? 'application/xml, text/xml' : 'application/json';
  const answer = await callVendor({ method: 'GET', url: feedUrl(feed, settings.baseUrls[feed]), headers: { accept }, timeoutMs: settings.timeoutMs });
  if (answer.kind === 'no_answer' || answer.status !== 200) return { kind: 'failed', error: describeAnswer(answer) };
  const read = feed === 'ecb' ? readEcbDaily(answer.text) : readFrankfurterLatest(answer.json);
  if (read.kind === 'unreadable') return { kind: 'failed', error: `unreadable document: ${read.reason}` };
  return read;
}
