// Proves, in Chromium at phone width against a real service and database, that a merchant user finds a payment by its
// reference inside a visible date window, reads every webhook attempt, re-sends the webhook (the receiver gets the
// same webhook-id again), sees its balances, and cannot open another business's payment.
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, fitsWidth, navTo, PHONE, signIn } from '../helpers/dashboard';
import { mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { createUser } from '../helpers/users';

let svc: TestService;
let browser: Browser;
let receiver: Receiver;
let shop: MerchantSetup;
let other: MerchantSetup;
const MM_MID = { payment_method: 'MOBILE_MONEY', currency: 'UGX' };
/** A fresh database, a service and Chromium take a while on a loaded machine. */
const SETUP_MS = 180_000;

beforeAll(async () => {
  // One delivery attempt per notification, so a failed one stays failed until the merchant re-sends it.
  svc = await startTestService({ env: { WEBHOOK_RETRY_SCHEDULE: '0s' } });
  receiver = await startReceiver(0, (_r, index) => (index < 2 ? { status: 503, body: 'maintenance' } : { status: 200, body: '{"received":true}' }));
  shop = await setupMerchant(svc, { webhookUrl: receiver.url, mids: [MM_MID] });
  other = await setupMerchant(svc, { mids: [MM_MID] });
  browser = (await launchBrowser()) as Browser;
}, SETUP_MS);
afterAll(() => closeAll(browser, receiver, svc));

async function paid(m: MerchantSetup, reference: string): Promise<string> {
  const r = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ merchant_reference: reference, account_number: '256700000123' }));
  expect(r.status).toBe(200);
  const gatewayReference = r.body.data.gateway_reference as string;
  expect((await m.client.post(`/v1/sandbox/collections/${gatewayReference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
  return gatewayReference;
}

describeBrowser('merchant view in Chromium at phone width', () => {
  it('finds a payment, reads its failed delivery and re-sends the webhook', async () => {
    await paid(shop, 'ORD-OTHER-0001');
    const wanted = await paid(shop, 'ORD-BOOKS-0042');
    const foreign = await paid(other, 'ORD-FOREIGN-7');
    await eventually(() => receiver.received.length === 2 || undefined, 15_000, 'both first deliveries');
    const firstIds = receiver.received.map((r) => r.headers['webhook-id']);

    const owner = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId });
    const page = await dashboardPage(browser, svc, '/', PHONE);
    await signIn(page, owner.email, owner.password);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await navTo(page, 'Payments');
    await page.getByRole('heading', { name: 'Payments' }).waitFor();
    await page.getByText(/2 collections created from .* UTC to .* UTC/).waitFor();
    expect(await fitsWidth(page)).toBe(true);

    await page.getByLabel('Merchant reference').fill('ORD-BOOKS-0042');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText(/^1 collection created from/).waitFor();
    expect(page.url()).toContain('reference=ORD-BOOKS-0042');
    await page.getByRole('link', { name: 'ORD-BOOKS-0042' }).click();
    await page.getByRole('heading', { name: `Payment ${wanted}` }).waitFor();
    expect(await fitsWidth(page)).toBe(true);

    // Which of the two first deliveries was this payment's, and what the endpoint answered.
    const ownId = firstIds.find((id) => receiver.received.some((r) => r.headers['webhook-id'] === id && r.body.includes(wanted))) as string;
    const deliveries = page.getByRole('region', { name: 'Webhook deliveries' });
    await deliveries.getByText(ownId).waitFor();
    await deliveries.getByText('retries exhausted').waitFor();
    await deliveries.getByRole('cell', { name: /503/ }).waitFor();
    const attemptsBefore = receiver.received.length;
    await deliveries.getByRole('button', { name: 'Re-send webhook' }).click();
    await deliveries.getByText('Re-send queued').waitFor();
    const again = await eventually(() => receiver.received.slice(attemptsBefore).find((r) => r.headers['webhook-id'] === ownId), 15_000, 'the re-sent delivery');
    expect(JSON.parse(again.body).gateway_reference).toBe(wanted);
    await page.reload();
    await deliveries.getByText(/delivered .* UTC/).waitFor();

    // Balances, then another business's payment: not found, with what to do.
    await navTo(page, 'Balances');
    await page.getByRole('region', { name: 'UGX wallet' }).getByText('Available').waitFor();
    expect(await fitsWidth(page)).toBe(true);
    // the business-wide delivery log: its table scrolls inside the page, the page does not widen
    await navTo(page, 'Webhook deliveries');
    await page.getByRole('button', { name: /^Re-send webhook of/ }).first().waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await page.goto(`${svc.url}/dashboard/payments/${foreign}`);
    await page.getByRole('alert').getByText('Check the address, or go back to the payments.').waitFor();
    await page.getByRole('alert').getByRole('link', { name: 'the payments' }).waitFor();
    expect(await page.content()).not.toContain('ORD-FOREIGN-7');
    await page.context().close();
  }, 180_000);
});
