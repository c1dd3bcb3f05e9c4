// Proves the hosted card pages in real headless Chromium on a phone-sized screen: card entry -> 3-D Secure challenge -> redirect_url for the success card, the failure card and a cancel, a direct card payment straight to the challenge, and field errors that never echo the card number.
import type { Browser, Page } from 'playwright-core';
import { maskPan } from '../../../src/domain/card';
import type { CardDetails } from '../../../src/domain/card';
import { eventually, setupMerchant } from '../../helpers/fixtures';
import type { MerchantSetup } from '../../helpers/fixtures';
import { launchBrowser, phonePage } from '../../helpers/browser';
import { needsChromium } from '../../helpers/requires';
import { startTestService } from '../../helpers/service';
import type { TestService } from '../../helpers/service';
import { FAILURE_PAN, SHOP, SUCCESS_PAN, card, createCard, encryptWithServiceKey } from './card-helpers';
import type { Created } from './card-helpers';

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

const LABELS: [keyof CardDetails, string][] = [
  ['full_name', 'Name on card'],
  ['card_number', 'Card number'],
  ['expiry_month', 'Expiry month'],
  ['expiry_year', 'Expiry year'],
  ['cvv', 'Security code (CVV)'],
  ['billing_address', 'Billing address'],
  ['billing_city', 'City'],
  ['billing_zip', 'Postal code'],
  ['billing_state', 'State or region'],
  ['billing_country', 'Country (2 letters)'],
];

/** Types the card into the entry form as a customer would, by the visible labels. */
async function fillCard(page: Page, details: CardDetails) {
  for (const [field, label] of LABELS) await page.getByLabel(label, { exact: true }).fill(details[field]);
}

async function row(reference: string) {
  return svc.services.db.one('SELECT status, message, card_masked FROM collections WHERE gateway_reference = $1', [reference]);
}

/** The webhook notification for the final status, written in the same transaction as the state change. */
async function notification(reference: string, status: string) {
  return eventually(
    () =>
      svc.services.db.oneOrNone(
        `SELECT n.transaction_status, n.body FROM notifications n JOIN collections c ON c.id = n.collection_id
         WHERE c.gateway_reference = $1 AND n.transaction_status = $2`,
        [reference, status],
      ).then((r) => r ?? undefined),
    10_000,
    `a ${status} notification`,
  );
}

/** After the last click: the browser is at redirect_url with the outcome in the query. */
async function landedWith(page: Page, landed: string[], c: Created, status: string) {
  await page.waitForURL(`${SHOP}/**`);
  const back = new URL(landed[landed.length - 1]);
  expect(back.pathname).toBe('/return');
  expect(Object.fromEntries(back.searchParams)).toEqual({
    order: '7',
    gateway_reference: c.gateway_reference,
    merchant_reference: c.merchant_reference,
    status,
  });
}

needsChromium().describe('hosted card entry and 3-D Secure in Chromium', () => {
  it.each([
    [SUCCESS_PAN, 'COMPLETED', 'Card payment authenticated with 3-D Secure'],
    [FAILURE_PAN, 'FAILED', '3-D Secure authentication failed'],
  ])('card %s: entry -> challenge -> Authenticate ends %s at redirect_url', async (pan, status, message) => {
    const c = await createCard(m);
    const { page, landed } = await phonePage(browser, SHOP);
    await page.goto(c.payment_url);
    await page.getByText('25,000 UGX').waitFor();
    await fillCard(page, card({ card_number: pan, cvv: '9371' }));
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.getByRole('heading', { name: 'Verify your payment' }).waitFor();
    expect(await page.locator('#card').textContent()).toBe(maskPan(pan));
    expect(await page.content()).not.toContain(pan);
    await page.getByRole('button', { name: 'Authenticate' }).click();
    await landedWith(page, landed, c, status);
    expect(await row(c.gateway_reference)).toEqual({ status, message, card_masked: maskPan(pan) });
    const n = await notification(c.gateway_reference, status);
    expect(JSON.parse(n.body)).toMatchObject({ gateway_reference: c.gateway_reference });
    expect(n.body).not.toContain(pan);
    await page.context().close();
  });

  it('Cancel on the entry page (nothing typed) ends CANCELLED at redirect_url', async () => {
    const c = await createCard(m);
    const { page, landed } = await phonePage(browser, SHOP);
    await page.goto(c.payment_url);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await landedWith(page, landed, c, 'CANCELLED');
    expect(await row(c.gateway_reference)).toMatchObject({ status: 'CANCELLED', card_masked: null });
    await notification(c.gateway_reference, 'CANCELLED');
    await page.context().close();
  });

  it('shows field errors for a card number failing Luhn without echoing it, then accepts the corrected card', async () => {
    const c = await createCard(m);
    const { page, landed } = await phonePage(browser, SHOP);
    await page.goto(c.payment_url);
    const badPan = '4000000000003007';
    await fillCard(page, card({ card_number: badPan, cvv: '9371', expiry_month: '13' }));
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.locator('#card_number-error').waitFor();
    expect(await page.locator('#card_number-error').textContent()).toContain('Luhn check failed');
    expect(await page.locator('#expiry_month-error').textContent()).toContain('01 to 12');
    const html = await page.content();
    expect(html).not.toContain(badPan);
    expect(html).not.toContain('9371');
    expect(await page.getByLabel('Card number').inputValue()).toBe('');
    expect(await page.getByLabel('Security code (CVV)').inputValue()).toBe('');
    expect(await page.getByLabel('Name on card').inputValue()).toBe('Amina Nakato');
    expect(await row(c.gateway_reference)).toMatchObject({ status: 'PENDING', card_masked: null });
    await fillCard(page, card());
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.getByRole('button', { name: 'Authenticate' }).click();
    await landedWith(page, landed, c, 'COMPLETED');
    await page.context().close();
  });
});

needsChromium().describe('direct card payment in Chromium', () => {
  it('goes straight to the challenge for the encrypted card and completes', async () => {
    const c = await createCard(m, await encryptWithServiceKey(m, card({ cvv: '9371' })));
    const { page, landed } = await phonePage(browser, SHOP);
    await page.goto(c.payment_url);
    await page.getByRole('heading', { name: 'Verify your payment' }).waitFor();
    expect(await page.locator('#card').textContent()).toBe(maskPan(SUCCESS_PAN));
    expect(await page.locator('input[name="card_number"]').count()).toBe(0);
    await page.getByRole('button', { name: 'Authenticate' }).click();
    await landedWith(page, landed, c, 'COMPLETED');
    expect(await row(c.gateway_reference)).toMatchObject({ status: 'COMPLETED' });
    await notification(c.gateway_reference, 'COMPLETED');
    await page.context().close();
  });

  it('Cancel on the challenge ends CANCELLED', async () => {
    const c = await createCard(m, await encryptWithServiceKey(m, card({ card_number: FAILURE_PAN })));
    const { page, landed } = await phonePage(browser, SHOP);
    await page.goto(c.payment_url);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await landedWith(page, landed, c, 'CANCELLED');
    expect(await row(c.gateway_reference)).toMatchObject({ status: 'CANCELLED', card_masked: maskPan(FAILURE_PAN) });
    await page.context().close();
  });
});
