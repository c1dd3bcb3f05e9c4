// Proves the market rates' figures at the Prometheus endpoint (METRICS_PORT), against a fake ECB over real sockets: each pair's age in seconds since its as_of, labelled by base, quote and source; whether it is stale by its source's maximum age (src/domain/rate-age.ts); and the jumps held for the operator, down again once decided.
import { FakeEcb } from '../fakes/ecb';
import { eventually } from '../helpers/fixtures';
import { expectOk } from '../helpers/merchants';
import { samplesOf as scrape } from '../helpers/scrape';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

const ecb = new FakeEcb({ date: '2026-11-26', rates: { KES: '140.5', UGX: '4100.25' } });
let clock = new Date('2026-11-27T10:00:00Z'); // a Friday
let svc: TestService;

beforeAll(async () => {
  await ecb.start();
  svc = await startTestService({ env: { RATE_FEEDS: 'ecb', ECB_RATES_BASE_URL: ecb.url, METRICS_PORT: '0' }, now: () => clock });
});
afterAll(async () => {
  await svc?.close();
  await ecb.stop();
});

const samplesOf = (name: string) => scrape(svc.metricsUrl!, name);

it("reports each pair's age and staleness, and the jumps held", async () => {
  // the worker's first look at the feed, as the service starts
  await eventually(() => svc.services.db.oneOrNone("SELECT 1 FROM fx_rates WHERE quote = 'KES'").then((r) => r ?? undefined), 20_000, 'the first refresh');
  clock = new Date('2026-11-30T17:00:00Z'); // Monday
  ecb.day = { date: '2026-11-30', rates: { KES: '170', UGX: '4101' } };
  expect(await svc.services.rates.refresh('ecb')).toMatchObject({ stored: 1, held: 1 });

  expect(await samplesOf('paycollect_fx_rate_age')).toEqual([
    { labels: '{base="EUR",quote="KES",source="ecb"}', value: 4 * 86_400 + 17 * 3600 },
    { labels: '{base="EUR",quote="UGX",source="ecb"}', value: 17 * 3600 },
  ]);
  expect((await samplesOf('paycollect_fx_rate_stale')).map((s) => s.value)).toEqual([0, 0]);
  expect(await samplesOf('paycollect_fx_rate_jumps_held')).toEqual([{ labels: '', value: 1 }]);

  clock = new Date('2026-12-01T10:00:00Z'); // Tuesday: Thursday's KES is 3 business days old
  expect(await samplesOf('paycollect_fx_rate_stale')).toEqual([
    { labels: '{base="EUR",quote="KES",source="ecb"}', value: 1 },
    { labels: '{base="EUR",quote="UGX",source="ecb"}', value: 0 },
  ]);
  expectOk(await svc.admin.post('/v1/admin/fx-rates/EUR/KES/held-jump/accept', { rate: 170 }));
  expect(await samplesOf('paycollect_fx_rate_jumps_held')).toEqual([{ labels: '', value: 0 }]);
  expect(await samplesOf('paycollect_fx_rate_stale')).toEqual([
    { labels: '{base="EUR",quote="KES",source="ecb"}', value: 0 },
    { labels: '{base="EUR",quote="UGX",source="ecb"}', value: 0 },
  ]);
});
