// Proves, in Chromium against a real service and database: the collections list's "Download CSV"
// link downloads the export with the list's current filters (the file has the header and exactly the rows
// the filters find), and a wallet's statement downloads as CSV for the chosen UTC days, from the merchant's
// Statement page and from the operator's statement of the business, opening balance, the payment's line (with
// the merchant's own reference) and closing balance included; and the refunds page lists them and its "Download CSV" gives a merchant its own refunds and an operator every
// business's (or one business's), with the page's filters. The dashboard's session cookie goes along with the plain link.
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, download, signIn } from '../helpers/dashboard';
import { mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, totpCode } from '../helpers/users';
import type { TestUser } from '../helpers/users';
import { headerOf, parseCsv } from '../reports/csv';

const clock = new Clock();
let svc: TestService;
let browser: Browser;
let books: MerchantSetup;
let tools: MerchantSetup;
let operator: TestUser;
let owner: TestUser;
const refs: Record<string, string> = {};
const MM_MID = { payment_method: 'MOBILE_MONEY', currency: 'UGX' };

async function pay(m: MerchantSetup, merchantReference: string, complete: boolean): Promise<string> {
  const r = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ merchant_reference: merchantReference, amount: 25000 }));
  expect(r.status).toBe(200);
  const reference = r.body.data.gateway_reference as string;
  if (complete) expect((await m.client.post(`/v1/sandbox/collections/${reference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
  return reference;
}

beforeAll(async () => {
  svc = await startTestService({ now: clock.now, env: { SANDBOX_MM_DELAY_MS: '3600000' } });
  books = await setupMerchant(svc, { name: 'Kampala Books', mids: [MM_MID] });
  tools = await setupMerchant(svc, { name: 'Nairobi Tools', mids: [MM_MID] });
  refs.booksPaid = await pay(books, 'ORD-BOOKS-0001', true);
  refs.booksPending = await pay(books, 'ORD-BOOKS-0002', false);
  refs.tools = await pay(tools, 'ORD-TOOLS-0001', true);
  operator = await createUser(svc, { role: 'operator_admin', totp: true });
  owner = await createUser(svc, { role: 'merchant_owner', business_id: books.businessId });
  browser = (await launchBrowser()) as Browser;
}, 180_000);
afterAll(() => closeAll(browser, svc));

async function operatorPage(path: string): Promise<Page> {
  const page = await dashboardPage(browser, svc, path);
  clock.advance(30_000); // one code per 30-second step
  await signIn(page, operator.email, operator.password, totpCode(svc));
  return page;
}

const today = () => clock.now().toISOString().slice(0, 10);

describeBrowser('downloads from the dashboard', () => {
  it("downloads an operator's collections with the list's filters", async () => {
    const page = await operatorPage(`/collections?business=${books.businessId}&status=COMPLETED`);
    await page.getByRole('region', { name: 'Collections found' }).getByText(refs.booksPaid).waitFor();
    const { file, text } = await download(page, 'Download CSV');
    expect(file).toMatch(/\.csv$/);
    expect(headerOf(text)).toContain('created_at_utc');
    expect(headerOf(text)).toContain('gateway_reference');
    const rows = parseCsv(text);
    expect(rows.map((r) => r.gateway_reference)).toEqual([refs.booksPaid]);
    expect(rows[0]).toMatchObject({ merchant_reference: 'ORD-BOOKS-0001', status: 'COMPLETED', business_id: String(books.businessId), request_currency: 'UGX' });

    // without filters: every business's collections
    await page.goto(`${svc.url}/dashboard/collections`);
    await page.getByRole('region', { name: 'Collections found' }).getByText(refs.tools).waitFor();
    const all = parseCsv((await download(page, 'Download CSV')).text);
    expect(all.map((r) => r.gateway_reference).sort()).toEqual(Object.values(refs).sort());
    await page.context().close();
  }, 120_000);

  it("downloads a merchant's own collections only", async () => {
    const page = await dashboardPage(browser, svc, '/payments');
    await signIn(page, owner.email, owner.password);
    await page.getByRole('heading', { name: 'Payments' }).waitFor();
    const rows = parseCsv((await download(page, 'Download CSV')).text);
    expect(rows.map((r) => r.gateway_reference).sort()).toEqual([refs.booksPaid, refs.booksPending].sort());
    await page.context().close();
  }, 120_000);

  it("downloads a wallet's statement from the merchant's Statement page and from the operator's, each line with the merchant's own reference", async () => {
    const check = (text: string) => {
      expect(headerOf(text)).toEqual(expect.arrayContaining(['time_utc', 'kind', 'reference', 'merchant_reference', 'net', 'balance_after', 'currency']));
      const rows = parseCsv(text);
      expect(rows[0].kind).toBe('opening_balance');
      expect(rows[0].time_utc).toBe(`${today()}T00:00:00Z`);
      expect(rows[rows.length - 1].kind).toBe('closing_balance');
      const lines = rows.slice(1, -1);
      expect(lines.map((l) => [l.kind, l.reference, l.merchant_reference, l.currency])).toEqual([['collection_credit', refs.booksPaid, 'ORD-BOOKS-0001', 'UGX']]);
      expect(rows[rows.length - 1].balance_after).toBe(lines[0].balance_after);
    };
    const days = `currency=UGX&from=${today()}&to=${today()}`;
    const merchant = await dashboardPage(browser, svc, `/statement?${days}`);
    await signIn(merchant, owner.email, owner.password);
    await merchant.getByRole('region', { name: 'UGX statement lines' }).getByText('ORD-BOOKS-0001').waitFor();
    check((await download(merchant, 'Download CSV')).text);
    await merchant.context().close();

    const page = await operatorPage(`/businesses/${books.businessId}/statement?${days}`);
    await page.getByRole('region', { name: 'UGX statement lines' }).getByText('ORD-BOOKS-0001').waitFor();
    check((await download(page, 'Download CSV')).text);
    await page.context().close();
  }, 120_000);

  // last: its refunds would add lines to the statements above
  it("downloads refunds with the page's filters: a merchant's own, an operator's of every business or of one", async () => {
    const refund = async (m: MerchantSetup, collection: string, amount: number, merchantReference: string) => {
      const r = await m.client.post(`/v1/collections/${collection}/refunds`, { amount, merchant_reference: merchantReference });
      expect(r.status).toBeLessThan(300);
      return r.body.data.gateway_reference as string;
    };
    const booksOne = await refund(books, refs.booksPaid, 5000, 'RFD-BOOKS-1');
    const booksTwo = await refund(books, refs.booksPaid, 3000, 'RFD-BOOKS-2');
    const toolsOne = await refund(tools, refs.tools, 1000, 'RFD-TOOLS-1');
    const references = (text: string) => parseCsv(text).map((r) => r.gateway_reference).sort();

    const merchant = await dashboardPage(browser, svc, '/refunds');
    await signIn(merchant, owner.email, owner.password);
    await merchant.getByRole('heading', { name: 'Refunds', level: 1 }).waitFor();
    // the list shows the business's own refunds, newest first, each linked to its payment
    const found = merchant.getByRole('region', { name: 'Refunds found' });
    await found.getByText(booksTwo).waitFor();
    expect(await found.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.textContent ?? ''))).toEqual([expect.stringContaining(booksTwo), expect.stringContaining(booksOne)]);
    expect(await found.getByRole('row', { name: /RFD-BOOKS-2/ }).getByRole('link', { name: refs.booksPaid }).getAttribute('href')).toBe(`/dashboard/payments/${refs.booksPaid}`);
    const own = await download(merchant, 'Download CSV');
    expect(own.file).toMatch(/^refunds-.*\.csv$/);
    expect(headerOf(own.text)).toEqual(expect.arrayContaining(['created_at_utc', 'gateway_reference', 'collection_gateway_reference', 'amount', 'currency']));
    expect(references(own.text)).toEqual([booksOne, booksTwo].sort());
    const form = merchant.getByRole('form', { name: 'Filter refunds' });
    await form.getByLabel('Merchant reference').fill('RFD-BOOKS-2');
    await form.getByRole('button', { name: 'Apply' }).click();
    await merchant.waitForURL(/merchant_reference=RFD-BOOKS-2/);
    await found.getByText(booksOne).waitFor({ state: 'detached' });
    expect(await found.locator('tbody tr').count()).toBe(1);
    expect(references((await download(merchant, 'Download CSV')).text)).toEqual([booksTwo]);
    await merchant.context().close();

    const page = await operatorPage('/refunds');
    await page.getByRole('heading', { name: 'Refunds', level: 1 }).waitFor();
    await page.getByRole('region', { name: 'Refunds found' }).getByText(toolsOne).waitFor();
    expect(await page.getByRole('region', { name: 'Refunds found' }).locator('tbody tr').count()).toBe(3);
    expect(references((await download(page, 'Download CSV')).text)).toEqual([booksOne, booksTwo, toolsOne].sort());
    const filter = page.getByRole('form', { name: 'Filter refunds' });
    await filter.getByLabel('Business').selectOption({ label: `Nairobi Tools (#${tools.businessId})` });
    await filter.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(new RegExp(`business_id=${tools.businessId}`));
    expect(references((await download(page, 'Download CSV')).text)).toEqual([toolsOne]);
    await page.context().close();
  }, 120_000);
});
