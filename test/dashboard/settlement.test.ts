// Proves, in Chromium against a real service and database, the Settlement report page: an operator finds it in the console's menu (and at the addresses a person guesses), picks a UTC day and reads the totals per processor and MID and the payment the processor and PayCollect disagree on, downloads the same report as CSV, and a day in the future gets the API's own refusal.
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, download, fieldError, navTo, signIn } from '../helpers/dashboard';
import { complete, createBusiness, insertPending } from '../helpers/money-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, totpCode } from '../helpers/users';

const clock = new Clock();
const DAY = '2026-03-14';
let svc: TestService;
let browser: Browser;
let settled: string;
let held: string;

/** A KES collection of 1,200 created on DAY and sent to an M-Pesa MID, as the processor-request wing records one (the settlement report test plants the same). */
async function plant(businessId: number, midId: number, o: { state: string; confirmed: string; credit: boolean }): Promise<string> {
  const s = svc.services;
  const row = await insertPending(s, businessId, { amountMinor: 120000n, currency: 'KES' });
  const at = `${DAY}T09:30:00Z`;
  await s.db.none('UPDATE collections SET created_at = $2, mid_id = $3 WHERE id = $1', [row.id, at, midId]);
  if (o.credit) await complete(s, row.id);
  await s.db.none(
    `INSERT INTO processor_requests (collection_id, mid_id, service_type, reference, callback_token, amount_minor, currency, state, confirmed_outcome, confirmed_at)
     VALUES ($1, $2, 'mpesa', $3, $4, 120000, 'KES', $5, $6, $7)`,
    [row.id, midId, `ref-${row.gateway_reference}`, `tok-${row.gateway_reference}`, o.state, o.confirmed, at],
  );
  return row.gateway_reference;
}

beforeAll(async () => {
  svc = await startTestService({ now: clock.now });
  const biz = await createBusiness(svc.services.db, { defaultCurrency: 'KES', fees: [{ method: 'MOBILE_MONEY', percent: '1', fixedMinor: 0n }] });
  const { id: midId } = await svc.services.db.one<{ id: number }>(
    `INSERT INTO mids (business_id, business_name, service_type, payment_method, currency) VALUES ($1, 'Planted', 'mpesa', 'MOBILE_MONEY', 'KES') RETURNING id`,
    [biz.businessId],
  );
  settled = await plant(biz.businessId, midId, { state: 'settled', confirmed: 'COMPLETED', credit: true });
  held = await plant(biz.businessId, midId, { state: 'held', confirmed: 'COMPLETED', credit: false });
  browser = (await launchBrowser()) as Browser;
}, 180_000);
afterAll(() => closeAll(browser, svc));

describeBrowser('the settlement report page', () => {
  it('is in the menu; shows a day’s totals and its mismatch, downloads the CSV, and refuses a day in the future', async () => {
    const operator = await createUser(svc, { role: 'operator_admin', totp: true });
    const page = await dashboardPage(browser, svc, '/overview');
    clock.advance(30_000);
    await signIn(page, operator.email, operator.password, totpCode(svc));
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await navTo(page, 'Settlement report');
    await page.getByRole('heading', { name: 'Settlement report', level: 1 }).waitFor();
    await page.getByText('For the collections created on one UTC day').waitFor();

    const form = page.getByRole('form', { name: 'Settlement day' });
    await form.getByLabel('Day (UTC, yyyy-mm-dd)').fill(DAY);
    await form.getByRole('button', { name: 'Show report' }).click();
    await page.getByRole('heading', { name: `Totals for ${DAY} (UTC)` }).waitFor();
    expect(new URL(page.url()).searchParams.get('date')).toBe(DAY);
    const totals = page.getByRole('region', { name: 'Totals', exact: true });
    const cells = await totals.getByRole('row', { name: /mpesa/ }).getByRole('cell').allTextContents();
    // 2 requests, both confirmed (2,400.00 KES); one completed here, credited less the 1 % fee; one mismatch
    expect(cells.slice(2)).toEqual(['2', '2 · 2,400.00 KES', '0', '1 · 1,200.00 KES', '1,188.00 KES', '12.00 KES', '1']);
    const mismatches = page.getByRole('region', { name: 'Mismatches', exact: true });
    const row = mismatches.getByRole('row', { name: new RegExp(held) });
    await row.getByText('Confirmed by the processor, not completed here').waitFor();
    expect(await row.textContent()).toContain('1,200.00 KES');
    expect(await mismatches.getByText(settled).count()).toBe(0);

    const csv = await download(page, 'Download CSV');
    expect(csv.text.split('\r\n')[0]).toMatch(/^record,date_utc,service_type/);
    expect(csv.text).toContain(`mismatch,${DAY},mpesa`);
    expect(csv.text).toContain(held);

    // the payment links to its page
    expect(await row.getByRole('link', { name: held }).getAttribute('href')).toBe(`/dashboard/collections/${held}`);

    // a day in the future: the API's refusal, in its words, and no table
    await page.goto(`${svc.url}/dashboard/reports/settlement?date=2099-01-01`);
    await page.getByRole('alert').waitFor();
    await fieldError(page, 'Settlement day', 'date').getByText('is in the future').waitFor();
    expect(await page.getByRole('region', { name: 'Totals', exact: true }).count()).toBe(0);

    // the addresses a person guesses open the same page
    for (const guess of ['/reports', '/settlement']) {
      await page.goto(`${svc.url}/dashboard${guess}`);
      await page.getByRole('heading', { name: 'Settlement report', level: 1 }).waitFor();
    }
    await page.context().close();
  }, 180_000);

  it('is not offered to a merchant', async () => {
    const biz = await createBusiness(svc.services.db);
    const owner = await createUser(svc, { role: 'merchant_owner', business_id: biz.businessId });
    const page = await dashboardPage(browser, svc, '/reports/settlement');
    await signIn(page, owner.email, owner.password);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settlement report' }).count()).toBe(0);
    await page.context().close();
  }, 120_000);
});
