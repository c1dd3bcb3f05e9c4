// Proves, in Chromium against a real service and database: the date filters of the payments list and
// the audit log are in the viewer's time zone (a browser in Africa/Nairobi, UTC+3), while a statement's days
// are UTC days typed as yyyy-mm-dd under a label that says so (its CSV and its lines are in UTC): each says its zone, the API
// is asked for the UTC instant of the wall time typed (the download link too), the address keeps UTC and the
// filter shows the same wall time again after a reload; and each date input shows its whole value, on a desktop
// and on a 390 px phone (nothing scrolled out of the box).
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, PHONE, signIn } from '../helpers/dashboard';
import { setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { createUser } from '../helpers/users';
import type { TestUser } from '../helpers/users';

let svc: TestService;
let browser: Browser;
let shop: MerchantSetup;
let owner: TestUser;
const NAIROBI = 'Africa/Nairobi';

beforeAll(async () => {
  svc = await startTestService();
  shop = await setupMerchant(svc, { name: 'Kampala Books', mids: [{ payment_method: 'MOBILE_MONEY', currency: 'UGX' }] });
  owner = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId });
  browser = (await launchBrowser()) as Browser;
}, 180_000);
afterAll(() => closeAll(browser, svc));

/** A signed-in page in Nairobi, with every query the dashboard sends to `operation` (a path under /v1/admin). */
async function nairobiPage(path: string, operation: string, viewport?: typeof PHONE): Promise<{ page: Page; asked: URLSearchParams[] }> {
  const page = await dashboardPage(browser, svc, path, viewport, { timezoneId: NAIROBI });
  const asked: URLSearchParams[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname === `/v1/admin/${operation}`) asked.push(url.searchParams);
  });
  await signIn(page, owner.email, owner.password);
  return { page, asked };
}

/** Each datetime input of the form with its value and whether the box shows all of it. */
const shownWhole = (page: Page, form: string) =>
  page
    .getByRole('form', { name: form })
    .locator('input[type="datetime-local"], input[type="date"]')
    .evaluateAll((inputs) => inputs.map((i) => ({ value: (i as HTMLInputElement).value, whole: i.scrollWidth <= i.clientWidth })));

describeBrowser("date filters in the viewer's time zone", () => {
  it('asks the API for the UTC instant of the wall time typed in the payments list, and shows it whole', async () => {
    for (const viewport of [undefined, PHONE]) {
      const { page, asked } = await nairobiPage('/payments', 'collections', viewport);
      await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
      const form = page.getByRole('form', { name: 'Search collections' });
      await form.getByLabel('From (GMT+3)').fill('2026-11-20T09:30');
      await form.getByLabel('To (GMT+3)').fill('2026-11-21T08:15');
      expect(await shownWhole(page, 'Search collections')).toEqual([
        { value: '2026-11-20T09:30', whole: true },
        { value: '2026-11-21T08:15', whole: true },
      ]);
      await form.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/from=2026-11-20T06%3A30%3A00Z/);
      await page.getByText(/^0 collections created from/).waitFor();
      const last = asked[asked.length - 1];
      expect([last.get('from'), last.get('to')]).toEqual(['2026-11-20T06:30:00Z', '2026-11-21T05:15:59Z']);
      // the window line and the CSV link say the same instants
      await page.getByText(/created from 2026-11-20 09:30:00 GMT\+3 to 2026-11-21 08:15:59 GMT\+3/).waitFor();
      const csv = new URL((await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href')) as string, svc.url);
      expect([csv.searchParams.get('from'), csv.searchParams.get('to')]).toEqual(['2026-11-20T06:30:00Z', '2026-11-21T05:15:59Z']);
      // after a reload the filter shows the wall time typed, not UTC
      await page.reload();
      await form.getByLabel('From (GMT+3)').waitFor();
      expect(await form.getByLabel('From (GMT+3)').inputValue()).toBe('2026-11-20T09:30');
      expect(await form.getByLabel('To (GMT+3)').inputValue()).toBe('2026-11-21T08:15');
      await page.context().close();
    }
  }, 180_000);

  it("asks for the UTC instant in the audit log's filter, and shows it whole", async () => {
    for (const viewport of [undefined, PHONE]) {
      const { page, asked } = await nairobiPage('/audit', 'audit-log', viewport);
      await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
      const form = page.getByRole('form', { name: 'Filter the audit log' });
      await form.getByLabel('From (GMT+3)').fill('2026-11-20T00:00');
      await form.getByLabel('To (GMT+3)').fill('2026-11-20T23:59');
      expect((await shownWhole(page, 'Filter the audit log')).every((i) => i.whole)).toBe(true);
      await form.getByRole('button', { name: 'Filter', exact: true }).click();
      await page.getByText('No entry matches these filters.').waitFor();
      const last = asked[asked.length - 1];
      expect([last.get('from'), last.get('to')]).toEqual(['2026-11-19T21:00:00Z', '2026-11-20T20:59:59Z']);
      await page.context().close();
    }
  }, 180_000);

  it('asks for a statement of whole UTC days typed as yyyy-mm-dd under a UTC label, in Nairobi as anywhere', async () => {
    const { page, asked } = await nairobiPage('/statement', `businesses/${shop.businessId}/wallets/UGX/statement`, PHONE);
    const form = page.getByRole('form', { name: 'Statement filters' });
    // text fields, not the browser's date picker: what is typed is what the label says, a UTC day
    const from = form.getByLabel('From (UTC day, yyyy-mm-dd)');
    expect(await from.getAttribute('type')).toBe('text');
    await from.fill('2026-11-20');
    await form.getByLabel('To (UTC day, included, yyyy-mm-dd)').fill('2026-11-21');
    await form.getByRole('button', { name: 'Show statement' }).click();
    const period = page.getByRole('region', { name: 'UGX statement', exact: true });
    await period.getByText('2026-11-20 00:00:00 UTC').waitFor();
    await period.getByText('2026-11-22 00:00:00 UTC').waitFor();
    await page.getByText('No movement of the UGX wallet in these days.').waitFor();
    expect(await form.getByLabel('From (UTC day, yyyy-mm-dd)').inputValue()).toBe('2026-11-20');
    const last = asked[asked.length - 1];
    expect([last.get('from'), last.get('to')]).toEqual(['2026-11-20T00:00:00Z', '2026-11-22T00:00:00Z']);
    const link = new URL((await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href')) as string, svc.url);
    expect([link.searchParams.get('from'), link.searchParams.get('to'), link.searchParams.get('format')]).toEqual(['2026-11-20T00:00:00Z', '2026-11-22T00:00:00Z', 'csv']);
    await page.context().close();
  }, 120_000);
});
