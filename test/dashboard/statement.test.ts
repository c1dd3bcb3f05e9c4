// Proves, in Chromium against a real service and database, the Statement page: a merchant's owner goes from Balances to the UGX wallet's statement,
// reads each movement of today (UTC) with its time in UTC, its kind in words, the shop's own reference (ORDER-1001, the refund's, the payout's) beside
// PayCollect's, the amount, fee and balance after; the opening and closing balances; the CSV of the same days says the same; a day that is no day
// is refused by the API at its field; the page fits a phone; and an operator reads the same statement from the business's page.
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, download, fieldError, fitsWidth, navTo, PHONE, signIn } from '../helpers/dashboard';
import { disbursingMerchant, mobileMoney } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, totpCode } from '../helpers/users';
import type { TestUser } from '../helpers/users';
import { parseCsv } from '../reports/csv';

const clock = new Clock();
let svc: TestService;
let browser: Browser;
let shop: MerchantSetup;
let owner: TestUser;
const refs: Record<string, string> = {};
const today = () => clock.now().toISOString().slice(0, 10);

beforeAll(async () => {
  svc = await startTestService({ now: clock.now, env: { SANDBOX_MM_DELAY_MS: '3600000' } });
  shop = await disbursingMerchant(svc, 50000);
  const paid = await shop.client.post('/v1/collections/request-to-pay', mobileMoney({ merchant_reference: 'ORDER-1001', amount: 75000 }));
  refs.order = paid.body.data.gateway_reference;
  expect((await shop.client.post(`/v1/sandbox/collections/${refs.order}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
  const refund = await shop.client.post(`/v1/collections/${refs.order}/refunds`, { amount: 25000, merchant_reference: 'RFD-00001' });
  expect(refund.status).toBe(200);
  refs.refund = refund.body.data.gateway_reference;
  const payout = await shop.client.post(
    '/v1/disbursements',
    { amount: 5000, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123503', account_name: 'Okello Transport', merchant_reference: 'PAYOUT-0007' },
    { headers: { 'secret-key': shop.apiSecret } },
  );
  expect(payout.status).toBe(200);
  refs.payout = payout.body.data.gateway_reference;
  owner = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId });
  browser = (await launchBrowser()) as Browser;
}, 180_000);
afterAll(() => closeAll(browser, svc));

/** The cells of the statement's row that names `text`, as the page shows them. */
async function rowOf(page: Page, text: string): Promise<string[]> {
  const row = page.getByRole('region', { name: 'UGX statement lines' }).getByRole('row').filter({ hasText: text });
  await row.waitFor();
  return row.getByRole('cell').allTextContents();
}

describeBrowser('the Statement page', () => {
  it("shows a merchant the day's movements with the shop's own references, in UTC, and the same as CSV", async () => {
    const page = await dashboardPage(browser, svc, '/balances');
    await signIn(page, owner.email, owner.password);
    await page.getByRole('heading', { name: 'Balances' }).waitFor();
    await page.getByRole('link', { name: 'UGX statement' }).click();
    await page.getByRole('heading', { name: 'Statement', level: 1 }).waitFor();
    await page.getByText('with your own reference beside PayCollect').waitFor();
    const form = page.getByRole('form', { name: 'Statement filters' });
    expect(await form.getByLabel('Wallet').inputValue()).toBe('UGX');
    // today is in the period shown by default (the month so far, in UTC days)
    expect(await form.getByLabel('To (UTC day, included, yyyy-mm-dd)').inputValue()).toBe(today());
    await form.getByLabel('From (UTC day, yyyy-mm-dd)').fill(today());
    await form.getByRole('button', { name: 'Show statement' }).click();
    await page.waitForURL(new RegExp(`from=${today()}`));

    const credit = await rowOf(page, 'ORDER-1001');
    expect(credit[0]).toMatch(new RegExp(`^${today()} \\d\\d:\\d\\d:\\d\\d UTC$`));
    expect(credit.slice(1, 4)).toEqual(['Payment credited', 'ORDER-1001', refs.order]);
    const refund = await rowOf(page, 'RFD-00001');
    expect(refund.slice(1, 4)).toEqual(['Refund held', 'RFD-00001', refs.refund]);
    const payout = await rowOf(page, 'PAYOUT-0007');
    expect(payout.slice(1, 4)).toEqual(['Payout held', 'PAYOUT-0007', refs.payout]);
    expect(payout[7]).toBe('—'); // no conversion on a UGX payout

    // the file of the same days: the same lines, the same references, the same balance after each
    const { text } = await download(page, 'Download CSV');
    const rows = parseCsv(text);
    expect(rows[0]).toMatchObject({ kind: 'opening_balance', time_utc: `${today()}T00:00:00Z` });
    const lines = rows.slice(1, -1);
    const shown = await page.getByRole('region', { name: 'UGX statement lines' }).locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent)));
    expect(shown.map((cells) => [cells[2], cells[3]])).toEqual(lines.map((l) => [l.merchant_reference || '—', l.reference]));
    const summary = page.getByRole('region', { name: 'UGX statement', exact: true });
    const closing = rows[rows.length - 1];
    await summary.getByText(`${Number(closing.balance_after).toLocaleString('en-US')} UGX`).first().waitFor();
    expect(await summary.getByText('Movements').count()).toBe(1);
    await page.context().close();
  }, 120_000);

  it("refuses a day that is no day at its field, in the API's words, and fits a phone", async () => {
    const page = await dashboardPage(browser, svc, `/statement?currency=UGX&from=${today()}&to=${today()}`, PHONE);
    await signIn(page, owner.email, owner.password);
    await page.getByRole('region', { name: 'UGX statement lines' }).getByText('ORDER-1001').waitFor();
    expect(await fitsWidth(page)).toBe(true);
    const form = page.getByRole('form', { name: 'Statement filters' });
    await form.getByLabel('From (UTC day, yyyy-mm-dd)').fill('2026-13-01');
    await form.getByRole('button', { name: 'Show statement' }).click();
    const refused = fieldError(page, 'Statement filters', 'from');
    await refused.waitFor();
    expect(await refused.textContent()).toMatch(/\w/);
    expect(await page.getByRole('region', { name: 'UGX statement lines' }).count()).toBe(0);
    await navTo(page, 'Statement');
    await page.getByRole('heading', { name: 'Statement', level: 1 }).waitFor();
    await page.context().close();
  }, 120_000);

  it("shows an operator the same statement from the business's page", async () => {
    const operator = await createUser(svc, { role: 'operator_admin', totp: true });
    const page = await dashboardPage(browser, svc, `/businesses/${shop.businessId}/wallets`);
    clock.advance(30_000);
    await signIn(page, operator.email, operator.password, totpCode(svc));
    await page.getByRole('link', { name: 'UGX statement' }).click();
    await page.getByRole('heading', { name: 'Statement', level: 2 }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Business sections' }).getByRole('link', { name: 'Statement' }).getAttribute('aria-current')).toBe('page');
    const form = page.getByRole('form', { name: 'Statement filters' });
    await form.getByLabel('From (UTC day, yyyy-mm-dd)').fill(today());
    await form.getByRole('button', { name: 'Show statement' }).click();
    expect((await rowOf(page, 'PAYOUT-0007')).slice(1, 4)).toEqual(['Payout held', 'PAYOUT-0007', refs.payout]);
    await page.context().close();
  }, 120_000);
});
