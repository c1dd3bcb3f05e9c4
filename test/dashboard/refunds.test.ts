// Proves, in Chromium against a real service and database, the Refunds section of a payment's page: an owner
// sees a reference suggested and, before anything is sent, what a refund will do (whole or part, the fee), then
// refunds part of a completed payment and sees it counted and listed with its state as it completes; an
// over-refund shows the API's error at the amount field and changes nothing in the database or the wallet;
// a refund the processor fails is listed FAILED with its reason and its amount counts no more; a viewer, at
// phone width, sees the list but no Refund form, and the page fits the screen.
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, fieldError, fitsWidth, PHONE, signIn } from '../helpers/dashboard';
import { mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { createUser } from '../helpers/users';
import { moneyText } from '../../src/domain/currencies';

let svc: TestService;
let browser: Browser;
let shop: MerchantSetup;
let payment: string;

beforeAll(async () => {
  // The collection completes only when the test says so (simulate), never by the sandbox's own delay;
  // the simulator's refunds are asked about soon after they are sent.
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '3600000', PROCESSOR_CHECK_SCHEDULE: '100ms,200ms' } });
  shop = await setupMerchant(svc);
  const created = await shop.client.post('/v1/collections/request-to-pay', mobileMoney({ merchant_reference: 'ORD-REFUND-UI-1', account_number: '256700000009' }));
  expect(created.status).toBe(200);
  payment = created.body.data.gateway_reference;
  expect((await shop.client.post(`/v1/sandbox/collections/${payment}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
  browser = (await launchBrowser()) as Browser;
}, 180_000);
afterAll(() => closeAll(browser, svc));

async function paymentPage(role: 'merchant_owner' | 'merchant_viewer', viewport?: typeof PHONE) {
  const user = await createUser(svc, { role, business_id: shop.businessId });
  const page = await dashboardPage(browser, svc, `/payments/${payment}`, viewport);
  await signIn(page, user.email, user.password);
  await page.getByRole('heading', { name: `Payment ${payment}` }).waitFor();
  return page;
}

/** What a refund changes: the refund rows, the collection's refunded part, the wallet's available money. */
async function refundState() {
  const rows = await svc.database.db.one('SELECT count(*)::int AS n FROM refunds r JOIN collections c ON c.id = r.collection_id WHERE c.gateway_reference = $1', [payment]);
  const collection = await svc.database.db.one('SELECT refunded_minor::text AS refunded FROM collections WHERE gateway_reference = $1', [payment]);
  const wallet = (await shop.client.get('/v1/data/wallets/UGX/balance')).body.data;
  return { refunds: rows.n, refunded: collection.refunded, available: wallet.available_balance };
}

describeBrowser('refunding from a payment page in Chromium', () => {
  it('lets an owner refund part of the payment, then refuses an over-refund at the amount and changes nothing', async () => {
    const page = await paymentPage('merchant_owner');
    const form = page.getByRole('form', { name: 'Refund' });
    // a fresh reference is suggested, as the new-disbursement form does
    expect(await form.getByLabel('Merchant reference').inputValue()).toMatch(/^RFD-\d{8}-[A-Z2-9]{6}$/);
    const before = await refundState();
    // an empty amount refunds everything: the page says so before anything is sent, and Change sends nothing
    await form.getByRole('button', { name: 'Review refund' }).click();
    const confirm = form.getByRole('group', { name: 'Confirm the refund' });
    expect(await confirm.textContent()).toContain('Refund the whole of what is still refundable: 50,000 UGX (the whole payment).');
    await confirm.getByRole('button', { name: 'Change' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(await refundState()).toEqual(before);

    await form.getByLabel('Amount').fill('20000');
    await form.getByLabel('Merchant reference').fill('RFD-UI-0001');
    await form.getByLabel('Reason').fill('Order cancelled by the customer');
    await form.getByRole('button', { name: 'Review refund' }).click();
    const summary = (await confirm.textContent()) ?? '';
    expect(summary).toContain('Refund part of the payment: 20,000 UGX of the 50,000 UGX still refundable; 30,000 UGX stays refundable.');
    const fee = await svc.database.db.one('SELECT fee_minor::text AS fee FROM collections WHERE gateway_reference = $1', [payment]);
    expect(summary).toContain(fee.fee === '0' ? 'A refund has no fee of its own; this payment had no fee.' : `A refund has no fee of its own; the payment's fee (${moneyText(BigInt(fee.fee), 'UGX')}) is not given back.`);
    // nothing is sent until it is confirmed
    expect(await refundState()).toEqual(before);
    await confirm.getByRole('button', { name: 'Confirm refund' }).click();
    await form.getByText(/^Refund .* accepted: PENDING\.$/).waitFor();
    const refunds = page.getByRole('region', { name: 'Refunds' });
    await refunds.getByText(/Refunded or being refunded: 20,000 UGX/).waitFor();
    await refunds.getByText(/still refundable: 30,000 UGX/).waitFor();
    // listed at once, then its state follows the simulator's answer without a reload
    const first = refunds.getByRole('row', { name: /RFD-UI-0001/ });
    await first.waitFor();
    expect(await first.textContent()).toContain('20,000 UGX');
    await first.getByText('COMPLETED').waitFor();
    const after = await refundState();
    expect(after).toMatchObject({ refunds: 1, refunded: '2000000' });
    const row = await svc.database.db.one('SELECT r.merchant_reference, r.reason FROM refunds r JOIN collections c ON c.id = r.collection_id WHERE c.gateway_reference = $1', [payment]);
    expect(row).toEqual({ merchant_reference: 'RFD-UI-0001', reason: 'Order cancelled by the customer' });

    await form.getByLabel('Amount').fill('30000.01');
    await form.getByLabel('Merchant reference').fill('RFD-UI-0002');
    // more than is refundable goes to the API, which refuses it at the field
    await form.getByRole('button', { name: 'Review refund' }).click();
    await fieldError(page, 'Refund', 'amount').waitFor();
    expect(await fieldError(page, 'Refund', 'amount').textContent()).toBe('is more than the 30,000 UGX still refundable on this collection');
    expect(await refundState()).toEqual(after);
    expect(await refunds.getByRole('row').count()).toBe(2); // the heading row and the one refund

    // cents .13: the simulator fails it after PROCESSING; the list says why, and its amount is refundable again
    await form.getByLabel('Amount').fill('100.13');
    await form.getByLabel('Merchant reference').fill('RFD-UI-0003');
    await form.getByRole('button', { name: 'Review refund' }).click();
    await confirm.getByRole('button', { name: 'Confirm refund' }).click();
    const failed = refunds.getByRole('row', { name: /RFD-UI-0003/ });
    await failed.getByText('FAILED').waitFor();
    expect(await failed.textContent()).toContain('The simulated processor declined the refund');
    await refunds.getByText(/still refundable: 30,000 UGX/).waitFor();
    // newest first
    expect(await refunds.getByRole('row').nth(1).textContent()).toContain('RFD-UI-0003');
    await page.context().close();
  }, 120_000);

  it('shows a viewer the refunds and their states without the Refund form, fitting a phone', async () => {
    const page = await paymentPage('merchant_viewer', PHONE);
    const refunds = page.getByRole('region', { name: 'Refunds' });
    await refunds.getByText(/Refunded or being refunded: 20,000 UGX/).waitFor();
    await refunds.getByRole('row', { name: /RFD-UI-0001/ }).getByText('COMPLETED').waitFor();
    await refunds.getByRole('row', { name: /RFD-UI-0003/ }).getByText('FAILED').waitFor();
    expect(await page.getByRole('form', { name: 'Refund' }).count()).toBe(0);
    expect(await fitsWidth(page)).toBe(true);
    await page.context().close();
  }, 120_000);
});
