// Proves, in Chromium against a service refreshing a fake ECB over real HTTP, the operator console's Market rates page: each pair with its source, age and a Stale or Current mark (a pair past its feed's max age is Stale), each feed's last refresh and error, and the jumps held (RATE_JUMP_PERCENT) with the rate in use, the held rate and the move; operator support sees them with Accept and Refuse disabled; an operator admin accepts one (after a confirmation naming the old rate, the new rate and the move in percent: it becomes the rate in use) and refuses another (it stays unused), each decided once in the database with who decided.
import type { Browser, Page } from 'playwright-core';
import { FakeEcb } from '../fakes/ecb';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, signIn } from '../helpers/dashboard';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { createUser, totpCode } from '../helpers/users';
import type { Clock } from '../helpers/users';

/** A service clock running from Tuesday 2026-12-01 10:00 UTC, moved by hand past each two-factor code. */
const start = Date.now();
let offsetMs = 0;
const clock = { now: () => new Date(Date.parse('2026-12-01T10:00:00Z') + (Date.now() - start) + offsetMs), advance: (ms: number) => (offsetMs += ms) } as unknown as Clock;
const ecb = new FakeEcb({ date: '2026-11-25', rates: { GBP: '0.84' } });
let svc: TestService;
let browser: Browser;

beforeAll(async () => {
  await ecb.start();
  svc = await startTestService({ env: { RATE_FEEDS: 'ecb', ECB_RATES_BASE_URL: ecb.url, RATE_FEED_TIMEOUT_MS: '300' }, now: clock.now, workers: false });
  // Wednesday's GBP, Friday's KES and UGX, then Monday's day: KES and UGX jump beyond 10%, USD is new
  await svc.services.rates.refresh('ecb');
  ecb.day = { date: '2026-11-27', rates: { KES: '140.5', UGX: '4100.25' } };
  await svc.services.rates.refresh('ecb');
  ecb.day = { date: '2026-11-30', rates: { KES: '162.4', UGX: '3500', USD: '1.09' } };
  expect(await svc.services.rates.refresh('ecb')).toMatchObject({ stored: 1, held: 2 });
  ecb.mode = 'error';
  await svc.services.rates.refresh('ecb');
  browser = (await launchBrowser()) as Browser;
}, 120_000);
afterAll(async () => {
  await closeAll(browser, svc);
  await ecb.stop();
});

async function ratesPage(role: 'operator_admin' | 'operator_support') {
  const user = await createUser(svc, { role, totp: true });
  const page = await dashboardPage(browser, svc, '/rates');
  clock.advance(30_000); // one code per 30-second step
  await signIn(page, user.email, user.password, totpCode(svc));
  await page.getByRole('heading', { name: 'Market rates', level: 1 }).waitFor();
  return { page, user };
}

const pairRow = (page: Page, pair: string) => page.getByRole('region', { name: 'Market rates in use' }).getByRole('row', { name: new RegExp(`^${pair}\\b`) });
const jumpRow = (page: Page, pair: string) => page.getByRole('region', { name: 'Jumps held for a decision' }).getByRole('row', { name: new RegExp(`^${pair}\\b`) });

const jumpOf = (quote: string) => svc.services.db.one("SELECT decision, decided_by FROM fx_rate_jumps WHERE base = 'EUR' AND quote = $1", [quote]);
const inUse = (quote: string) => svc.services.db.one("SELECT rate::text, as_of FROM fx_rates WHERE base = 'EUR' AND quote = $1", [quote]);

describeBrowser('the Market rates page', () => {
  it('shows each pair with its source, age and stale mark, the feeds with their error, and the held jumps; support cannot decide', async () => {
    const { page } = await ratesPage('operator_support');
    const gbp = pairRow(page, 'EUR → GBP');
    await gbp.getByText('Stale').waitFor();
    expect(await gbp.textContent()).toMatch(/0\.84ecb.*6 d 10 h/);
    const kes = pairRow(page, 'EUR → KES');
    await kes.getByText('Current').waitFor();
    await kes.getByText('Jump held').waitFor();
    expect(await kes.textContent()).toMatch(/140\.5ecb.*4 d 10 h/);
    await pairRow(page, 'EUR → USD').getByText('1.09').waitFor();
    const feed = page.getByRole('region', { name: 'Rate feeds' }).getByRole('row', { name: /^ecb\b/ });
    await feed.getByText(/^HTTP 503/).waitFor();
    // a feed RATE_FEEDS does not name is never asked: it says so rather than "never"
    const frankfurter = page.getByRole('region', { name: 'Rate feeds' }).getByRole('row', { name: /^frankfurter\b/ });
    await frankfurter.getByText('not configured').waitFor();
    expect(await jumpRow(page, 'EUR → KES').textContent()).toMatch(/140\.5162\.4\+15\.59%ecb/);
    expect(await jumpRow(page, 'EUR → UGX').textContent()).toMatch(/4100\.253500-14\.64%ecb/);
    expect(await page.getByRole('button', { name: 'Accept the EUR/KES jump' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Refuse the EUR/UGX jump' }).isDisabled()).toBe(true);
    await page.context().close();
  }, 120_000);

  it('lets an operator admin accept one jump and refuse another, each after a confirmation with the old rate, the new one and the move', async () => {
    const { page, user } = await ratesPage('operator_admin');
    const asked: string[] = [];
    page.on('dialog', (d) => void asked.push(d.message()));
    await page.getByRole('button', { name: 'Accept the EUR/KES jump' }).click();
    await jumpRow(page, 'EUR → UGX').waitFor();
    await pairRow(page, 'EUR → KES').getByText('162.4').waitFor();
    expect(await jumpRow(page, 'EUR → KES').count()).toBe(0);
    expect(asked).toEqual(['Accept the rate jump of EUR/KES: in use 140.5, held 162.4 (+15.59%). The held rate becomes the rate in use. This is decided once.']);
    expect(await jumpOf('KES')).toEqual({ decision: 'accepted', decided_by: user.email });
    expect(await inUse('KES')).toEqual({ rate: '162.400000000000', as_of: new Date('2026-11-30T00:00:00Z') });

    await page.getByRole('button', { name: 'Refuse the EUR/UGX jump' }).click();
    await page.getByRole('region', { name: 'Held rate jumps' }).waitFor({ state: 'detached' });
    expect(asked[1]).toBe('Refuse the rate jump of EUR/UGX: in use 4100.25, held 3500 (-14.64%). The held rate is discarded; the rate in use is kept. This is decided once.');
    expect(await jumpOf('UGX')).toEqual({ decision: 'refused', decided_by: user.email });
    expect(await inUse('UGX')).toEqual({ rate: '4100.250000000000', as_of: new Date('2026-11-27T00:00:00Z') });
    expect(await pairRow(page, 'EUR → UGX').getByText('Jump held').count()).toBe(0);
    await page.context().close();
  }, 120_000);
});
