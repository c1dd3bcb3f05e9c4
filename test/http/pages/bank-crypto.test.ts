// Proves the online-banking and crypto hosted pages: in real Chromium the customer approves or cancels and lands on
// redirect_url with the outcome; forms need the page token and the CSRF pair; a final payment cannot be moved again.
import type { Browser } from 'playwright-core';
import { ref, setupMerchant } from '../../helpers/fixtures';
import type { MerchantSetup } from '../../helpers/fixtures';
import { launchBrowser, phonePage } from '../../helpers/browser';
import { needsChromium } from '../../helpers/requires';
import { startTestService } from '../../helpers/service';
import type { TestService } from '../../helpers/service';

const SHOP = 'https://shop.example.org';
let svc: TestService;
let m: MerchantSetup;
let browser: Browser;

beforeAll(async () => {
  svc = await startTestService();
  m = await setupMerchant(svc);
  // null only outside CI without Chromium, where the tests that use it are skipped
  browser = (await launchBrowser()) as Browser;
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

async function create(method: 'BANK' | 'CRYPTO') {
  const res = await m.client.post('/v1/collections/request-to-pay', {
    currency: 'UGX', amount: 25000, payment_method: method, account_number: 'acct-0042', redirect_url: `${SHOP}/return?order=42`,
    merchant_reference: ref(), narration: 'Hosted page order',
  });
  return res.body.data as { gateway_reference: string; merchant_reference: string; payment_url: string };
}

const status = async (reference: string) =>
  (await svc.database.db.one('SELECT status FROM collections WHERE gateway_reference = $1', [reference])).status;

needsChromium().describe('hosted bank and crypto pages in Chromium', () => {
  it.each([
    ['BANK', 'Approve transfer', 'COMPLETED'],
    ['BANK', 'Cancel', 'CANCELLED'],
    ['CRYPTO', 'I have sent the deposit', 'COMPLETED'],
    ['CRYPTO', 'Cancel', 'CANCELLED'],
  ] as const)('%s: "%s" ends %s and returns to the shop', async (method, button, outcome) => {
    const c = await create(method);
    const { page, landed } = await phonePage(browser, SHOP);
    await page.goto(c.payment_url);
    await page.getByText('25,000 UGX').waitFor();
    await page.getByRole('button', { name: button }).click();
    await page.waitForURL(`${SHOP}/**`);
    const back = new URL(landed[0]);
    expect(back.searchParams.get('order')).toBe('42');
    expect(back.searchParams.get('gateway_reference')).toBe(c.gateway_reference);
    expect(back.searchParams.get('merchant_reference')).toBe(c.merchant_reference);
    expect(back.searchParams.get('status')).toBe(outcome);
    expect(await status(c.gateway_reference)).toBe(outcome);
    await page.context().close();
  });
});

describe('hosted pages over plain HTTP', () => {
  it('refuses a wrong page token and an unknown reference', async () => {
    const c = await create('BANK');
    const wrong = c.payment_url.replace(/token=.*/, 'token=nope');
    expect((await fetch(wrong)).status).toBe(404);
    expect((await fetch(`${svc.url}/pay/PCNOTHING000000000000?token=x`)).status).toBe(404);
  });

  it('refuses a form without the CSRF pair and changes nothing', async () => {
    const c = await create('BANK');
    const token = new URL(c.payment_url).searchParams.get('token')!;
    const res = await fetch(`${svc.url}/pay/${c.gateway_reference}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, csrf: 'forged', action: 'approve' }),
      redirect: 'manual',
    });
    expect(res.status).toBe(403);
    expect(await status(c.gateway_reference)).toBe('PENDING');
  });

  it('accepts the form with the cookie and field of its page, once', async () => {
    const c = await create('CRYPTO');
    const page = await fetch(c.payment_url);
    const cookie = page.headers.get('set-cookie')!.split(';')[0];
    const html = await page.text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1];
    const token = new URL(c.payment_url).searchParams.get('token')!;
    const post = () =>
      fetch(`${svc.url}/pay/${c.gateway_reference}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams({ token, csrf, action: 'confirm' }),
        redirect: 'manual',
      });
    const first = await post();
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toContain('status=COMPLETED');
    const second = await post();
    expect(second.status).toBe(200);
    expect(await second.text()).toContain('Payment completed');
    const journals = await svc.database.db.any(
      "SELECT j.id FROM journals j JOIN collections c ON c.id = j.collection_id WHERE c.gateway_reference = $1 AND j.kind = 'collection_credit'",
      [c.gateway_reference],
    );
    expect(journals).toHaveLength(1);
  });
});
