// Proves, against a real service and database and in Chromium, the overview's last 30 days day by day: the API's
// `days` (per UTC day, method and currency: payments, completed, final, success rate and completed volume) for
// payments made on two days, and on the page a uPlot chart of volume and success rate beside a table of the same
// numbers, read by an operator at 1280 px and a merchant's owner at 390 px (where it fits the width), with
// axe finding nothing serious.
import type { Browser, Page } from 'playwright-core';
import { seriousViolations } from '../helpers/axe';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, fitsWidth, PHONE, signIn } from '../helpers/dashboard';
import { mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { expectOk } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, totpCode } from '../helpers/users';

const DAY_MS = 86_400_000;
const clock = new Clock();
let svc: TestService;
let browser: Browser;
let shop: MerchantSetup;
let other: MerchantSetup;
let firstDay: string;
let secondDay: string;

async function pay(m: MerchantSetup, amount: number, outcome: 'COMPLETED' | 'FAILED' | null): Promise<void> {
  const r = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ amount }));
  expect(r.status).toBe(200);
  if (outcome) expect((await m.client.post(`/v1/sandbox/collections/${r.body.data.gateway_reference}/simulate`, { outcome })).status).toBe(200);
}

const dayOf = (d: Date) => d.toISOString().slice(0, 10);

/** The merchant's client with a new access token (the one it had ends an hour after it was made). */
async function again(m: MerchantSetup): Promise<MerchantSetup> {
  const access = expectOk(await svc.anon.post('/v1/auth/token', { api_key: m.apiKey, expires_in: 3600 }, { headers: { 'secret-key': m.apiSecret } }));
  return { ...m, client: svc.merchant(access.token) };
}

beforeAll(async () => {
  svc = await startTestService({ now: clock.now, env: { SANDBOX_MM_DELAY_MS: '3600000' } });
  shop = await setupMerchant(svc, { name: 'Kampala Books', mids: [{ payment_method: 'MOBILE_MONEY', currency: 'UGX' }] });
  other = await setupMerchant(svc, { name: 'Nairobi Tools', mids: [{ payment_method: 'MOBILE_MONEY', currency: 'UGX' }] });
  firstDay = dayOf(clock.now());
  await pay(shop, 50000, 'COMPLETED');
  await pay(shop, 30000, 'COMPLETED');
  await pay(shop, 10000, 'FAILED');
  await pay(other, 7000, 'COMPLETED');
  clock.advance(DAY_MS);
  secondDay = dayOf(clock.now());
  shop = await again(shop);
  await pay(shop, 20000, 'COMPLETED');
  await pay(shop, 5000, null);
  browser = (await launchBrowser()) as Browser;
}, 180_000);
afterAll(() => closeAll(browser, svc));

it('answers the last 30 days day by day, per method and currency, of one business or of all', async () => {
  const mine = expectOk(await svc.admin.get(`/v1/admin/overview?business_id=${shop.businessId}`));
  expect(mine.days).toEqual([
    { day: firstDay, payment_method: 'MOBILE_MONEY', currency: 'UGX', collections: 3, completed: 2, final: 3, success_rate: 0.6667, volume: 80000 },
    { day: secondDay, payment_method: 'MOBILE_MONEY', currency: 'UGX', collections: 2, completed: 1, final: 1, success_rate: 1, volume: 20000 },
  ]);
  const all = expectOk(await svc.admin.get('/v1/admin/overview'));
  expect(all.days[0]).toMatchObject({ day: firstDay, collections: 4, completed: 3, volume: 87000 });
  const refused = await svc.admin.get('/v1/admin/overview?business_id=not-a-number');
  expect(refused.status).toBe(400);
});

/** The day-by-day table's rows as their cells read. */
async function dayRows(page: Page): Promise<string[][]> {
  const table = page.getByRole('region', { name: 'MOBILE_MONEY UGX per day, last 30 days' });
  await table.getByRole('row', { name: new RegExp(secondDay) }).waitFor();
  const rows = await table.getByRole('row').all();
  return Promise.all(rows.slice(1).map((r) => r.getByRole('cell').allTextContents()));
}

describeBrowser('the overview day by day', () => {
  it('shows an operator at 1280 px a chart of volume and success rate beside a table of the same numbers', async () => {
    const operator = await createUser(svc, { role: 'operator_admin', totp: true });
    const page = await dashboardPage(browser, svc, '/overview');
    clock.advance(30_000);
    await signIn(page, operator.email, operator.password, totpCode(svc));
    const chart = page.getByRole('img', { name: 'MOBILE_MONEY UGX: volume and success rate per day, last 30 days' });
    await chart.locator('canvas').waitFor();
    expect(await dayRows(page)).toEqual([
      [firstDay, '4', '3', '75.0 %', '87,000 UGX'],
      [secondDay, '2', '1', '100.0 %', '20,000 UGX'],
    ]);
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  }, 120_000);

  it("shows a merchant's owner its own numbers at 390 px, the chart within the phone's width", async () => {
    const owner = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId });
    const page = await dashboardPage(browser, svc, '/overview', PHONE);
    await signIn(page, owner.email, owner.password);
    const chart = page.getByRole('img', { name: 'MOBILE_MONEY UGX: volume and success rate per day, last 30 days' });
    await chart.locator('canvas').waitFor();
    expect(await dayRows(page)).toEqual([
      [firstDay, '3', '2', '66.7 %', '80,000 UGX'],
      [secondDay, '2', '1', '100.0 %', '20,000 UGX'],
    ]);
    const box = await chart.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
    expect(await fitsWidth(page)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  }, 120_000);
});
