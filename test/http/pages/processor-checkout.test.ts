// Proves the live hosted checkouts in real headless Chromium: the customer opens payment_url, goes to the fake Paystack, completes (or fails and tries again, or abandons) 3-D Secure, returns and lands on redirect_url; a direct card, a crypto invoice, an outage while the customer waits, webhooks before and after the return, and a tampered return URL; wallet, webhook and operator view agree.
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { encryptCard } from '../../../scripts/encrypt-card';
import { CHROMIUM, launchBrowser, phonePage } from '../../helpers/browser';
import { SHOP, balance, requestPayment, startHostedWorld, stateOf } from '../../helpers/hosted';
import type { HostedWorld, Payment } from '../../helpers/hosted';
import { eventually } from '../../helpers/notify-fixtures';

let w: HostedWorld;
let browser: Browser | null = null;

beforeAll(async () => {
  browser = await launchBrowser();
  if (browser) w = await startHostedWorld();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await w?.close();
});

afterEach(() => {
  if (!w) return;
  w.paystack.mode = 'up';
  w.paystack.autoWebhooks = true;
});

/** A phone's browser; `landed` lists the merchant pages it arrived at. */
async function customer(): Promise<{ page: Page; landed: string[] }> {
  if (!browser) throw new Error('no browser');
  return phonePage(browser, SHOP);
}

/** The BTCPay invoice id a collection's checkout went to. */
async function invoiceOf(p: Payment): Promise<string> {
  const r = await w.svc.services.db.one<{ vendor_reference: string }>(
    'SELECT k.vendor_reference FROM checkouts k JOIN collections c ON c.id = k.collection_id WHERE c.gateway_reference = $1',
    [p.gateway_reference],
  );
  return r.vendor_reference;
}

function landedWith(landed: string[], p: Payment): URL {
  const url = new URL(landed.at(-1)!);
  expect(url.origin).toBe(SHOP);
  expect(url.searchParams.get('gateway_reference')).toBe(p.gateway_reference);
  expect(url.searchParams.get('merchant_reference')).toBe(p.merchant_reference);
  return url;
}

async function arrive(landed: string[]): Promise<void> {
  await eventually(() => landed.length > 0, 15_000, 'the customer back at the shop');
}

/** Chosen at load time: in CI Chromium must be there (launchBrowser fails without it); elsewhere its absence skips. */
const run = existsSync(CHROMIUM) || process.env.CI === 'true' ? describe : describe.skip;
if (!existsSync(CHROMIUM) && process.env.CI !== 'true') console.warn(`skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium)`);

run('card with 3-D Secure at Paystack', () => {
  test('payment_url -> Paystack checkout -> 3-D Secure -> back -> redirect_url COMPLETED; wallet, webhook and operator view agree', async () => {
    const before = await balance(w, 'NGN');
    const p = await requestPayment(w, 'CARD');
    const { page, landed } = await customer();
    await page.goto(p.payment_url);
    expect(page.url()).toMatch(new RegExp(`^${w.paystack.url}/checkout/`));
    await page.getByText('NGN 25000.00').waitFor();
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.getByRole('heading', { name: '3-D Secure' }).waitFor();
    await page.getByRole('button', { name: 'Authenticate' }).click();
    await arrive(landed);
    expect(landedWith(landed, p).searchParams.get('status')).toBe('COMPLETED');

    await eventually(async () => (await stateOf(w, p.gateway_reference)).hooks.length === 1);
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'COMPLETED', journals: 1, hooks: ['COMPLETED'] });
    expect(await balance(w, 'NGN')).toBe(before + 25000);
    const operator = (await w.svc.admin.get(`/v1/admin/collections/${p.gateway_reference}`)).body.data;
    expect(operator).toMatchObject({ transaction_status: 'COMPLETED', institution_name: 'Paystack', total_credit: 25000 });
    await page.context().close();
  });

  test('3-D Secure failure: back at our page the payment is still open (PENDING, nothing credited); paying again on the same checkout completes it', async () => {
    const p = await requestPayment(w, 'CARD');
    const { page, landed } = await customer();
    await page.goto(p.payment_url);
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.getByRole('button', { name: 'Fail authentication' }).click();
    await page.getByRole('link', { name: 'Return to merchant' }).click();
    await page.getByRole('heading', { name: 'Your payment is not confirmed yet' }).waitFor();
    expect(landed).toEqual([]);
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'PENDING', journals: 0 });
    await page.getByRole('button', { name: 'Go back to the payment' }).click();
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.getByRole('button', { name: 'Authenticate' }).click();
    await arrive(landed);
    expect(landedWith(landed, p).searchParams.get('status')).toBe('COMPLETED');
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'COMPLETED', journals: 1 });
    await page.context().close();
  });

  test('abandoning the checkout: our page says it is not paid, the way back to it still works, and leaving shows PENDING', async () => {
    const p = await requestPayment(w, 'CARD');
    const { page, landed } = await customer();
    await page.goto(p.payment_url);
    await page.getByRole('button', { name: 'Cancel payment' }).click();
    await page.getByRole('heading', { name: 'Your payment is not confirmed yet' }).waitFor();
    await page.getByRole('link', { name: 'Go back to the payment' }).click();
    expect(page.url()).toMatch(new RegExp(`^${w.paystack.url}/checkout/`));
    await page.getByRole('button', { name: 'Cancel payment' }).click();
    await page.getByRole('link', { name: 'Return to the merchant' }).click();
    await arrive(landed);
    expect(landedWith(landed, p).searchParams.get('status')).toBe('PENDING');
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'PENDING', journals: 0, hooks: [] });
    await page.context().close();
  });

  test('the processor down while the customer waits: a plain page with a retry; nothing FAILED; the retry pays', async () => {
    const p = await requestPayment(w, 'CARD');
    const { page, landed } = await customer();
    w.paystack.mode = 'reset';
    await page.goto(p.payment_url);
    await page.getByRole('heading', { name: 'We cannot reach the payment service right now' }).waitFor();
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'PENDING' });
    w.paystack.mode = 'up';
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.getByRole('button', { name: 'Authenticate' }).click();
    await arrive(landed);
    expect(landedWith(landed, p).searchParams.get('status')).toBe('COMPLETED');
    await page.context().close();
  });

  test('Paystack\'s webhook before the customer returns: the return finds it completed; credited once', async () => {
    const p = await requestPayment(w, 'BANK');
    const { page, landed } = await customer();
    // Hold the browser on its way back until the webhook has done its work.
    await page.route('**/pay/*/return*', async (route) => {
      await eventually(async () => (await stateOf(w, p.gateway_reference)).status === 'COMPLETED', 15_000, 'completion by webhook');
      await route.continue();
    });
    await page.goto(p.payment_url);
    await page.getByRole('button', { name: 'Approve bank payment' }).click();
    await arrive(landed);
    expect(landedWith(landed, p).searchParams.get('status')).toBe('COMPLETED');
    await w.paystack.deliveriesDone();
    await eventually(async () => (await stateOf(w, p.gateway_reference)).hooks.length === 1);
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ journals: 1, hooks: ['COMPLETED'] });
    await page.context().close();
  });

  test('Paystack\'s webhook after the customer returned changes nothing; a tampered return URL changes nothing', async () => {
    w.paystack.autoWebhooks = false;
    const p = await requestPayment(w, 'CARD');
    const { page, landed } = await customer();
    await page.goto(p.payment_url);
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.getByRole('button', { name: 'Authenticate' }).click();
    await arrive(landed);
    w.paystack.sendWebhook(p.gateway_reference);
    await w.paystack.deliveriesDone();
    await eventually(async () => (await stateOf(w, p.gateway_reference)).hooks.length === 1);
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'COMPLETED', journals: 1, hooks: ['COMPLETED'] });

    const unpaid = await requestPayment(w, 'CARD');
    const second = await customer();
    await second.page.goto(unpaid.payment_url);
    const token = new URL(unpaid.payment_url).searchParams.get('token');
    await second.page.goto(`${w.svc.url}/pay/${unpaid.gateway_reference}/return?token=${token}&trxref=${unpaid.gateway_reference}&reference=${unpaid.gateway_reference}&status=success`);
    await second.page.getByRole('heading', { name: 'Your payment is not confirmed yet' }).waitFor();
    expect(await stateOf(w, unpaid.gateway_reference)).toMatchObject({ status: 'PENDING', journals: 0, hooks: [] });
    await page.context().close();
    await second.page.context().close();
  });
});

run('direct card and crypto', () => {
  test('a direct card: charged server to server, payment_url opens the 3-D Secure step, back to redirect_url', async () => {
    const key = (await w.client.get('/v1/public-key')).body.data.public_key;
    const encrypted = encryptCard(key, {
      full_name: 'Adaeze Okafor', card_number: '4000000000003006', expiry_month: '12', expiry_year: String(new Date().getUTCFullYear() + 2), cvv: '123',
      billing_address: '3 Marina', billing_city: 'Lagos', billing_zip: '', billing_state: 'Lagos', billing_country: 'NG',
    });
    const p = await requestPayment(w, 'CARD', { encrypted_card: encrypted });
    const { page, landed } = await customer();
    await page.goto(p.payment_url);
    expect(page.url()).toMatch(new RegExp(`^${w.paystack.url}/3ds/`));
    await page.getByRole('button', { name: 'Authenticate' }).click();
    await arrive(landed);
    expect(landedWith(landed, p).searchParams.get('status')).toBe('COMPLETED');
    await page.context().close();
  });

  test('crypto at BTCPay: paid, back while confirming, then settled: redirect_url COMPLETED', async () => {
    const p = await requestPayment(w, 'CRYPTO');
    const { page, landed } = await customer();
    await page.goto(p.payment_url);
    expect(page.url()).toMatch(new RegExp(`^${w.btcpay.url}/i/`));
    w.btcpay.confirmAfterMs = null; // the network confirms when the test says so
    await page.getByRole('button', { name: 'Pay in full' }).click();
    await page.getByRole('heading', { name: 'Your payment is not confirmed yet' }).waitFor();
    w.btcpay.confirmAfterMs = 300;
    w.btcpay.confirm(await invoiceOf(p));
    await eventually(async () => (await stateOf(w, p.gateway_reference)).status === 'COMPLETED', 15_000, 'settlement');
    await page.getByRole('button', { name: 'Check again' }).click();
    await arrive(landed);
    expect(landedWith(landed, p).searchParams.get('status')).toBe('COMPLETED');
    await page.context().close();
  });
});
