// Proves market rates from the daily feeds through the public API, against fake ECB and Frankfurter servers over real sockets: a refresh stores a day with its source and as_of and a payment converts through EUR exactly; a weekend's repeat writes nothing; a malformed document, a 503 and a slow answer keep the last good rates and record the error; a currency missing from a day keeps its older rate; past the max age each converting request-to-pay is refused with RATE_UNAVAILABLE and creates nothing, while a payment needing no conversion goes through; an operator's rate is never replaced by a feed; a feed is asked again only when its turn comes; the worker refreshes once the service starts.
import { FakeEcb } from '../fakes/ecb';
import { FakeFrankfurter } from '../fakes/frankfurter';
import { eventually, mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { accessToken, expectOk, snapshot } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { Client, TestService } from '../helpers/service';

const ecb = new FakeEcb({ date: '2026-11-26', rates: { USD: '1.0823', KES: '140.5', UGX: '4100.25' } });
const frankfurter = new FakeFrankfurter({ date: '2026-11-26', rates: { USD: '1.0823', KES: '140.5', UGX: '4100.25' } });
let clock = new Date('2026-11-27T10:00:00Z'); // a Friday
let svc: TestService;
let m: MerchantSetup;

beforeAll(async () => {
  await ecb.start();
  await frankfurter.start();
  svc = await startTestService({
    env: { RATE_FEEDS: 'ecb,frankfurter', ECB_RATES_BASE_URL: ecb.url, FRANKFURTER_BASE_URL: `${frankfurter.url}/v1`, RATE_FEED_TIMEOUT_MS: '300', RATE_REFRESH_MINUTES: '60' },
    now: () => clock,
    workers: false,
  });
  const mids = ['UGX', 'KES', 'USD'].map((currency) => ({ payment_method: 'MOBILE_MONEY', currency }));
  m = await setupMerchant(svc, { defaultCurrency: 'UGX', mids });
});
afterAll(async () => {
  await svc?.close();
  await ecb.stop();
  await frankfurter.stop();
});

/** The merchant's client with a token issued at the current clock. */
async function merchant(): Promise<Client> {
  return svc.merchant(await accessToken(svc, m.apiKey, m.apiSecret));
}

async function pay(client: Client, currency: string, amount: number) {
  return client.post('/v1/collections/request-to-pay', mobileMoney({ currency, amount }));
}

function source(name: string) {
  return svc.services.db.one('SELECT * FROM rate_sources WHERE name = $1', [name]);
}

/** What a refused request must leave as it was: the money tables, notifications and set-up. */
async function moneyState() {
  const counts = await svc.services.db.one(
    `SELECT (SELECT count(*) FROM collections) AS collections, (SELECT count(*) FROM notifications) AS notifications,
       (SELECT count(*) FROM journals) AS journals, (SELECT count(*) FROM processor_requests) AS requests,
       (SELECT version FROM config_version) AS version`,
  );
  return { counts, setup: await snapshot(svc) };
}

it('stores a day with its source and as_of, and converts KES into the UGX wallet through EUR exactly', async () => {
  expect((await svc.services.rates.refresh('ecb')).stored).toBe(3);
  const list = expectOk(await svc.admin.get('/v1/admin/fx-rates'));
  expect(list).toContainEqual({ base: 'EUR', quote: 'KES', rate: 140.5, source: 'ecb', as_of: '2026-11-26T00:00:00Z', updated_at: '2026-11-27T10:00:00Z' });
  expect(await source('ecb')).toMatchObject({ last_success_at: clock, last_as_of: new Date('2026-11-26T00:00:00Z'), last_error: null });
  const res = await pay(await merchant(), 'KES', 1000);
  // 1000 KES x 4100.25 / 140.5 = 29183.274... UGX, rounded once
  expect(res.body.data).toMatchObject({ account_currency: 'UGX', account_amount: 29183.27 });
  const row = await svc.services.db.one('SELECT fx_rate FROM collections WHERE merchant_reference = $1', [res.body.data.merchant_reference]);
  expect(row.fx_rate).toBe('29.183274021352');
});

it('writes nothing when the feed repeats its day (a weekend), and records the success', async () => {
  clock = new Date('2026-11-28T10:00:00Z'); // Saturday
  const before = await moneyState();
  expect(await svc.services.rates.refresh('ecb')).toEqual({ feed: 'ecb', stored: 0, held: 0, error: null });
  expect(await svc.services.rates.refresh('frankfurter')).toEqual({ feed: 'frankfurter', stored: 0, held: 0, error: null });
  expect(await moneyState()).toEqual(before);
  expect(await source('frankfurter')).toMatchObject({ last_success_at: clock, last_error: null });
});

it.each([
  ['a malformed document', () => (ecb.malformed = true), /^unreadable document: not a gesmes:Envelope document$/],
  ['a 503', () => (ecb.mode = 'error'), /^HTTP 503/],
  ['an answer slower than RATE_FEED_TIMEOUT_MS', () => (ecb.delayMs = 1000), /^no answer within 300 ms$/],
])('keeps the last good rates and records the error after %s', async (_what, breakIt, error) => {
  clock = new Date('2026-11-30T17:00:00Z'); // Monday: a new day is published
  ecb.day = { date: '2026-11-30', rates: { USD: '1.09', KES: '141', UGX: '4101' } };
  breakIt();
  try {
    const before = await snapshot(svc);
    const result = await svc.services.rates.refresh('ecb');
    expect(result.error).toMatch(error);
    expect(await snapshot(svc)).toEqual(before);
    expect(await source('ecb')).toMatchObject({ last_attempt_at: clock, last_success_at: new Date('2026-11-28T10:00:00Z'), last_error: expect.stringMatching(error) });
    // Thursday's rates are one business day old: still converted with
    expect((await pay(await merchant(), 'KES', 1000)).body.data).toMatchObject({ account_amount: 29183.27 });
  } finally {
    ecb.malformed = false;
    ecb.mode = 'up';
    ecb.delayMs = 0;
  }
});

it('keeps the older rate of a currency missing from a new day', async () => {
  ecb.day = { date: '2026-11-30', rates: { USD: '1.09', UGX: '4101' } };
  expect((await svc.services.rates.refresh('ecb')).stored).toBe(2);
  const rows = await svc.services.db.any("SELECT quote, rate::text, as_of FROM fx_rates WHERE base = 'EUR' ORDER BY quote");
  expect(rows).toEqual([
    { quote: 'KES', rate: '140.500000000000', as_of: new Date('2026-11-26T00:00:00Z') },
    { quote: 'UGX', rate: '4101.000000000000', as_of: new Date('2026-11-30T00:00:00Z') },
    { quote: 'USD', rate: '1.090000000000', as_of: new Date('2026-11-30T00:00:00Z') },
  ]);
});

it('refuses each converting request once its rate is past the max age, creating nothing; a payment in the wallet currency goes through', async () => {
  clock = new Date('2026-12-01T10:00:00Z'); // Tuesday: KES of Thursday is 3 business days old
  ecb.mode = 'error';
  frankfurter.mode = 'error';
  try {
    const client = await merchant();
    const before = await moneyState();
    const res = await pay(client, 'KES', 1000);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('300');
    expect(res.body).toMatchObject({ code: 'RATE_UNAVAILABLE', message: 'no current rate for KES->UGX since 2026-11-26T00:00:00Z', data: { from: 'KES', to: 'UGX', as_of: '2026-11-26T00:00:00Z' } });
    expect(await moneyState()).toEqual(before);
    expect((await pay(client, 'USD', 10)).body.data).toMatchObject({ account_currency: 'UGX', account_amount: 37623.85 });

    clock = new Date('2026-12-03T10:00:00Z'); // Thursday: Monday's rates are 3 business days old too
    expect((await svc.services.rates.refresh('ecb')).error).toMatch(/^HTTP 503/);
    expect((await svc.services.rates.refresh('frankfurter')).error).toMatch(/^HTTP 503/);
    const later = await merchant();
    const stale = await moneyState();
    for (const [currency, since] of [['KES', '2026-11-26'], ['USD', '2026-11-30']]) {
      const refused = await pay(later, currency, 10);
      expect(refused.status).toBe(503);
      expect(refused.body.message).toBe(`no current rate for ${currency}->UGX since ${since}T00:00:00Z`);
    }
    expect(await moneyState()).toEqual(stale);
    expect((await pay(later, 'UGX', 5000)).body.data).toMatchObject({ account_currency: 'UGX', account_amount: 5000 });
  } finally {
    ecb.mode = 'up';
    frankfurter.mode = 'up';
  }
});

it('takes a newer day from Frankfurter, and converts again', async () => {
  frankfurter.day = { date: '2026-12-02', rates: { USD: '1.1', KES: '142.25', UGX: '4120.5' } };
  expect(await svc.services.rates.refresh('frankfurter')).toEqual({ feed: 'frankfurter', stored: 3, held: 0, error: null });
  expect(expectOk(await svc.admin.get('/v1/admin/fx-rates'))).toContainEqual(expect.objectContaining({ base: 'EUR', quote: 'USD', rate: 1.1, source: 'frankfurter', as_of: '2026-12-02T00:00:00Z' }));
  expect((await pay(await merchant(), 'KES', 1000)).body.data).toMatchObject({ account_amount: 28966.61 });
});

it("never replaces an operator's rate with a feed's, and uses it while the feeds are stale", async () => {
  expectOk(await svc.admin.put('/v1/admin/fx-rates', { base: 'EUR', quote: 'KES', rate: 150 }));
  frankfurter.day = { date: '2026-12-03', rates: { USD: '1.1', KES: '142.25', UGX: '4120.5' } };
  expect((await svc.services.rates.refresh('frankfurter')).stored).toBe(2);
  const kes = await svc.services.db.one("SELECT rate::text, source FROM fx_rates WHERE base = 'EUR' AND quote = 'KES'");
  expect(kes).toEqual({ rate: '150.000000000000', source: 'operator' });
});

it('asks a feed only when its turn has come: RATE_REFRESH_MINUTES after a success, sooner after a failure', async () => {
  const calls = () => ecb.calls;
  const at = calls();
  expect(await svc.services.rates.refreshDue()).toEqual([]);
  expect(calls()).toBe(at);
  clock = new Date(clock.getTime() + 60 * 60_000);
  ecb.mode = 'error';
  try {
    const due = await svc.services.rates.refreshDue();
    expect(due.map((r) => r.feed)).toEqual(['ecb', 'frankfurter']);
    expect(calls()).toBe(at + 1);
    clock = new Date(clock.getTime() + 4 * 60_000);
    expect(await svc.services.rates.refreshDue()).toEqual([]);
    clock = new Date(clock.getTime() + 60_000);
    expect((await svc.services.rates.refreshDue()).map((r) => r.feed)).toEqual(['ecb']);
  } finally {
    ecb.mode = 'up';
  }
});

it('is refreshed by the worker once the service starts with RATE_FEEDS', async () => {
  const feed = new FakeFrankfurter({ date: '2026-11-30', rates: { GBP: '0.8412' } });
  await feed.start();
  const running = await startTestService({ env: { RATE_FEEDS: 'frankfurter', FRANKFURTER_BASE_URL: `${feed.url}/v1` }, now: () => new Date('2026-11-30T17:00:00Z') });
  try {
    const row = await eventually(() => running.services.db.oneOrNone("SELECT rate::text, source FROM fx_rates WHERE base = 'EUR' AND quote = 'GBP'").then((r) => r ?? undefined), 20_000, 'the worker refresh');
    expect(row).toEqual({ rate: '0.841200000000', source: 'frankfurter' });
  } finally {
    await running.close();
    await feed.stop();
  }
});
