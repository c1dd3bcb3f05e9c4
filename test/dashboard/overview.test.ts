// Proves, in Chromium against a real service and database, the overview: an operator sees today's and the last 30 days' payments by method as a chart with a table of the same numbers, the success rate per MID and what waits on an operator; a merchant's owner sees its own business with its balances (each currency in its own minor unit) and nothing of the processors' side.
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, fitsWidth, PHONE, signIn } from '../helpers/dashboard';
import { mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, totpCode } from '../helpers/users';

const clock = new Clock();
let svc: TestService;
let browser: Browser;
let books: MerchantSetup;
let tools: MerchantSetup;
const MM_MID = { payment_method: 'MOBILE_MONEY', currency: 'UGX' };

async function pay(m: MerchantSetup, amount: number, outcome: 'COMPLETED' | 'FAILED' | null): Promise<void> {
  const r = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ amount }));
  expect(r.status).toBe(200);
  if (outcome) expect((await m.client.post(`/v1/sandbox/collections/${r.body.data.gateway_reference}/simulate`, { outcome })).status).toBe(200);
}

beforeAll(async () => {
  svc = await startTestService({ now: clock.now, env: { SANDBOX_MM_DELAY_MS: '3600000' } });
  books = await setupMerchant(svc, { name: 'Kampala Books', wallets: ['UGX', 'USD'], mids: [MM_MID] });
  tools = await setupMerchant(svc, { name: 'Nairobi Tools', mids: [MM_MID] });
  await pay(books, 50000, 'COMPLETED');
  await pay(books, 30000, 'COMPLETED');
  await pay(books, 10000, 'FAILED');
  await pay(books, 5000, null);
  await pay(tools, 20000, 'COMPLETED');
  browser = (await launchBrowser()) as Browser;
}, 180_000);
afterAll(() => closeAll(browser, svc));

describeBrowser('the overview', () => {
  it('shows an operator payments by method as a chart and a table, the success rate per MID and what waits on an operator', async () => {
    const operator = await createUser(svc, { role: 'operator_admin', totp: true });
    const page = await dashboardPage(browser, svc, '/overview');
    clock.advance(30_000);
    await signIn(page, operator.email, operator.password, totpCode(svc));
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByRole('img', { name: 'Payments by method, today' }).waitFor();
    // every bar's number fits inside its chart, none cut off at the right edge ("5 (75.0 %" was)
    const overhang = await page.evaluate(() =>
      Array.from(document.querySelectorAll('svg[role="img"]')).flatMap((svg) => {
        const width = (svg as SVGSVGElement).viewBox.baseVal.width;
        return Array.from(svg.querySelectorAll('text.chart-value')).map((t) => (t as SVGTextElement).getBBox()).filter((b) => b.x + b.width > width).map((b) => b.x + b.width - width);
      }),
    );
    expect(overhang).toEqual([]);
    const today = page.getByRole('region', { name: 'Today by method' });
    const cells = await today.getByRole('row', { name: /MOBILE_MONEY/ }).getByRole('cell').allTextContents();
    expect(cells).toEqual(['MOBILE_MONEY', '5', '3', '75.0 %', '100,000 UGX']);
    await page.getByRole('img', { name: 'Success rate per MID, last 30 days' }).waitFor();
    const mids = page.getByRole('region', { name: 'MIDs, last 30 days' });
    expect(await mids.getByRole('row').count()).toBe(3); // the heading and one MID of each business
    await mids.getByRole('row', { name: new RegExp(`#${books.businessId}\\b.*66\\.7 %`) }).waitFor();
    const waiting = page.getByRole('region', { name: 'Waiting on an operator' });
    await waiting.getByText(/held payments?/).waitFor();
    await waiting.getByRole('link', { name: /failing webhook/ }).waitFor();
    await page.context().close();
  }, 120_000);

  it("shows a merchant's owner its own business with balances, on a phone, without the processors' side", async () => {
    const owner = await createUser(svc, { role: 'merchant_owner', business_id: books.businessId });
    const page = await dashboardPage(browser, svc, '/overview', PHONE);
    await signIn(page, owner.email, owner.password);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    const today = page.getByRole('region', { name: 'Today by method' });
    await today.getByRole('row', { name: /MOBILE_MONEY/ }).waitFor();
    expect(await today.getByRole('row', { name: /MOBILE_MONEY/ }).getByRole('cell').allTextContents()).toEqual(['MOBILE_MONEY', '4', '2', '66.7 %', '80,000 UGX']);
    // money in each currency's own minor unit: whole shillings, cents of a dollar
    // the balances come by a request of their own: read their rows once they are on the page
    const balances = page.getByRole('region', { name: 'Balances' });
    await balances.getByRole('row', { name: /UGX/ }).waitFor();
    await balances.getByRole('row', { name: /USD/ }).waitFor();
    const ugx = await balances.getByRole('row', { name: /UGX/ }).getByRole('cell').allTextContents();
    expect(ugx.length).toBeGreaterThan(1);
    expect(ugx.slice(1).every((c) => /^[\d,]+ UGX$/.test(c))).toBe(true);
    expect(await balances.getByRole('row', { name: /USD/ }).getByRole('cell').allTextContents()).toContain('0.00 USD');
    expect(await page.getByRole('region', { name: 'Waiting on an operator' }).count()).toBe(0);
    expect(await page.getByRole('img', { name: /per MID/ }).count()).toBe(0);
    expect(await fitsWidth(page)).toBe(true);
    await page.context().close();
  }, 120_000);
});
