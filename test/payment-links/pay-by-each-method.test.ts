// Proves, in real headless Chromium at a phone's width, that a customer pays a payment link by each method,
// and that each payment is an ordinary collection: in the sandbox by mobile money (a phone number, then the
// page until the prompt's answer completes it), card (entry and 3-D Secure), bank (the approval page) and
// crypto (the deposit invoice); in live by mobile money at a fake MTN MoMo and by card at a fake Paystack,
// both over real sockets. Each ends with the link's one attempt COMPLETED, the link counting it, the
// merchant's webhook received and the wallet credited by one journal. One browser and one service per mode.
import type { Browser, Page } from 'playwright-core';
import type { CardDetails } from '../../src/domain/card';
import { FakeMtnMomo } from '../fakes/mtn-momo';
import { launchBrowser, phonePage } from '../helpers/browser';
import { eventually, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { SHOP, startHostedWorld } from '../helpers/hosted';
import type { HostedWorld } from '../helpers/hosted';
import { expectOk } from '../helpers/merchants';
import { startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { needsChromium } from '../helpers/requires';
import { startTestService } from '../helpers/service';
import type { Client, TestService } from '../helpers/service';
import { card } from '../http/pages/card-helpers';

const run = needsChromium();
let browser: Browser;
let sandbox: TestService;
let hooks: Receiver;
let shop: MerchantSetup;
let live: HostedWorld;
let mtn: FakeMtnMomo;

beforeAll(async () => {
  // null only outside CI without Chromium, where the tests are skipped
  browser = (await launchBrowser()) as Browser;
  if (!browser) return;
  hooks = await startReceiver();
  sandbox = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '50', WEBHOOK_RETRY_SCHEDULE: '0s,200ms' } });
  shop = await setupMerchant(sandbox, { name: 'Kampala Tailors', webhookUrl: hooks.url });
  mtn = new FakeMtnMomo();
  await mtn.start();
  live = await startHostedWorld({ MTN_MOMO_BASE_URL: mtn.url });
  // the live business also takes mobile money in UGX, at MTN
  expectOk(await live.svc.admin.post(`/v1/admin/businesses/${live.businessId}/wallets`, { currency: 'UGX' }), 'createWallet');
  expectOk(
    await live.svc.admin.post(`/v1/admin/businesses/${live.businessId}/mids`, {
      business_name: 'Lagos Books', service_type: 'mtn_momo', payment_method: 'MOBILE_MONEY', currency: 'UGX', credentials: mtn.credentials(),
    }),
    'createMid',
  );
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
  await hooks?.close();
  await live?.close();
  await mtn?.stop();
});

interface Link {
  link_id: string;
  url: string;
}

async function newLink(client: Client, body: Record<string, unknown>): Promise<Link> {
  return expectOk<Link>(
    await client.post('/v1/payment-links', {
      title: 'Tailoring deposit',
      payment_methods: ['MOBILE_MONEY', 'CARD', 'BANK', 'CRYPTO'],
      custom_fields: [{ label: 'Order number', required: true }],
      ...body,
    }),
    'createPaymentLink',
  );
}

/** The link's page in a phone's browser: the customer fills in the order number and picks the method. */
async function openAndPick(link: Link, method: string): Promise<{ page: Page; landed: string[] }> {
  const opened = await phonePage(browser, SHOP);
  opened.page.setDefaultTimeout(30_000);
  await opened.page.goto(link.url);
  await opened.page.getByRole('heading', { name: 'Tailoring deposit' }).waitFor();
  await opened.page.getByLabel('Order number').fill('ORD-77');
  await opened.page.getByRole('radio', { name: method }).check();
  return opened;
}

const PAY = (page: Page) => page.getByRole('button', { name: 'Pay', exact: true }).click();

/** The link's attempts and their collections, as the database has them. */
function attemptsOf(svc: TestService, link: Link) {
  return svc.services.db.any<{ gateway_reference: string; status: string; payment_method: string; custom_values: Record<string, string> }>(
    `SELECT c.gateway_reference, c.status, c.payment_method, a.custom_values
     FROM payment_link_attempts a JOIN payment_links l ON l.id = a.link_id JOIN collections c ON c.id = a.collection_id WHERE l.link_id = $1`,
    [link.link_id],
  );
}

async function balance(client: Client, currency: string): Promise<number> {
  return expectOk<{ balance: number }>(await client.get(`/v1/data/wallets/${currency}/balance`), 'walletGetBalance').balance;
}

/**
 * What every paid link must show: its one attempt, a collection of `method` COMPLETED with the customer's
 * custom value; the link's counts; the merchant's COMPLETED webhook for that collection; one credit journal
 * and the wallet up by `amount` from `before`.
 */
async function paidOnce(o: { svc: TestService; client: Client; received: { body: string }[]; link: Link; method: string; currency: string; amount: number; before: number }) {
  const [attempt, ...more] = await attemptsOf(o.svc, o.link);
  expect(more).toEqual([]);
  expect(attempt).toMatchObject({ status: 'COMPLETED', payment_method: o.method, custom_values: { 'Order number': 'ORD-77' } });
  const ref = attempt.gateway_reference;
  expect(expectOk(await o.client.get(`/v1/collections/${ref}`), 'getCollection')).toMatchObject({ transaction_status: 'COMPLETED', request_amount: o.amount, request_currency: o.currency });
  const counted = expectOk(await o.client.get(`/v1/payment-links/${o.link.link_id}`), 'getPaymentLink');
  expect([counted.attempts, counted.completed_payments, counted.amount_collected]).toEqual([1, 1, o.amount]);
  const hooked = await eventually(
    async () => {
      const bodies = o.received.map((r) => JSON.parse(r.body)).filter((b) => b.gateway_reference === ref);
      return bodies.length > 0 ? bodies : undefined;
    },
    15_000,
    `the merchant's webhook for ${ref}`,
  );
  expect(hooked.map((b) => b.transaction_status)).toEqual(['COMPLETED']);
  const { n } = await o.svc.services.db.one<{ n: number }>(
    "SELECT count(*)::int AS n FROM journals j JOIN collections c ON c.id = j.collection_id WHERE c.gateway_reference = $1 AND j.kind = 'collection_credit'",
    [ref],
  );
  expect(n).toBe(1);
  expect(await balance(o.client, o.currency)).toBe(o.before + o.amount);
  return ref;
}

const CARD_LABELS: [keyof CardDetails, string][] = [
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

run.describe('paying a payment link in the sandbox, by each method', () => {
  const THANKS = 'Thank you, we start sewing today';
  const sandboxLink = () => newLink(shop.client, { amount: 25000, currency: 'UGX', confirmation_message: THANKS });
  const paid = async (link: Link, method: string, before: number) =>
    paidOnce({ svc: sandbox, client: shop.client, received: hooks.received, link, method, currency: 'UGX', amount: 25000, before });

  /** The link's end page: the collection's outcome and the link's confirmation message. */
  async function thanked(page: Page) {
    await page.getByRole('heading', { name: 'Payment completed' }).waitFor();
    await page.getByText(THANKS).waitFor();
  }

  it('mobile money: a phone number, then the page until the prompt is answered, then the confirmation', async () => {
    const link = await sandboxLink();
    const before = await balance(shop.client, 'UGX');
    const { page } = await openAndPick(link, 'Mobile money');
    await page.getByLabel('Phone number for mobile money (country code first)').fill('256777000001');
    await PAY(page);
    await page.waitForURL(/\/pay\//);
    await eventually(
      async () => {
        await page.reload();
        return (await page.getByRole('heading', { name: 'Payment completed' }).count()) > 0 || undefined;
      },
      30_000,
      'the payment page to say it completed',
    );
    await page.getByRole('link', { name: 'Return to the merchant' }).click();
    await page.getByText(THANKS).waitFor();
    await paid(link, 'MOBILE_MONEY', before);
    // the phone number went in the form's body, never in a URL
    expect(page.url()).not.toContain('256777000001');
    await page.context().close();
  }, 60_000);

  it('card: card entry, then 3-D Secure, then the confirmation', async () => {
    const link = await sandboxLink();
    const before = await balance(shop.client, 'UGX');
    const { page } = await openAndPick(link, 'Card');
    await page.getByLabel('Name on the card (card payments)').fill('Amina Nakato');
    await page.getByLabel('Email (card payments)').fill('amina@customer.example');
    await PAY(page);
    await page.getByText('25,000 UGX').waitFor();
    const details = card();
    for (const [field, label] of CARD_LABELS) await page.getByLabel(label, { exact: true }).fill(details[field]);
    await PAY(page);
    await page.getByRole('heading', { name: 'Verify your payment' }).waitFor();
    await page.getByRole('button', { name: 'Authenticate' }).click();
    await thanked(page);
    await paid(link, 'CARD', before);
    await page.context().close();
  }, 60_000);

  it('bank: the transfer approved on its page, then the confirmation', async () => {
    const link = await sandboxLink();
    const before = await balance(shop.client, 'UGX');
    const { page } = await openAndPick(link, 'Bank');
    await PAY(page);
    await page.getByText('25,000 UGX').waitFor();
    await page.getByRole('button', { name: 'Approve transfer' }).click();
    await thanked(page);
    await paid(link, 'BANK', before);
    await page.context().close();
  }, 60_000);

  it('crypto: the deposit invoice (address and amount), the deposit sent, then the confirmation', async () => {
    const link = await sandboxLink();
    const before = await balance(shop.client, 'UGX');
    const { page } = await openAndPick(link, 'Crypto');
    await PAY(page);
    await page.getByRole('heading', { name: 'Send your deposit' }).waitFor();
    await page.getByText('25,000 UGX').waitFor();
    expect(await page.locator('#address').textContent()).toMatch(/^sandbox1q[0-9a-f]{38}$/);
    await page.getByRole('button', { name: 'I have sent the deposit' }).click();
    await thanked(page);
    await paid(link, 'CRYPTO', before);
    await page.context().close();
  }, 60_000);
});

run.describe('paying a payment link in live, against the processor fakes', () => {
  it('mobile money at MTN MoMo: one request to pay for the phone number, completed by MTN\'s callback', async () => {
    const link = await newLink(live.client, { amount: 50000, currency: 'UGX', payment_methods: ['MOBILE_MONEY', 'CARD'], redirect_url: `${SHOP}/thanks` });
    const before = await balance(live.client, 'UGX');
    const { page, landed } = await openAndPick(link, 'Mobile money');
    await page.getByLabel('Phone number for mobile money (country code first)').fill('256772123456');
    await PAY(page);
    await page.waitForURL(/\/pay\//);
    await eventually(
      async () => {
        await page.reload();
        return (await page.getByRole('heading', { name: 'Payment completed' }).count()) > 0 || undefined;
      },
      30_000,
      'the payment page to say it completed',
    );
    await page.getByRole('link', { name: 'Return to the merchant' }).click();
    await eventually(async () => landed.length > 0 || undefined, 15_000, 'the customer back at the shop');
    const ref = await paidOnce({ svc: live.svc, client: live.client, received: live.hooks.received, link, method: 'MOBILE_MONEY', currency: 'UGX', amount: 50000, before });
    // MTN was asked once, for this phone and amount; the customer lands on the link's redirect_url with the outcome
    expect(mtn.byExternalId(ref)).toMatchObject({ amount: '50000', currency: 'UGX', partyId: '256772123456', status: 'SUCCESSFUL' });
    expect([...mtn.requests.values()].filter((r) => r.externalId === ref)).toHaveLength(1);
    const back = new URL(landed.at(-1)!);
    expect([back.pathname, back.searchParams.get('gateway_reference'), back.searchParams.get('status')]).toEqual(['/thanks', ref, 'COMPLETED']);
    await page.context().close();
  }, 60_000);

  it('card at Paystack: the link\'s page, Paystack\'s checkout and 3-D Secure, back to the link\'s redirect_url', async () => {
    const link = await newLink(live.client, { amount: 25000, currency: 'NGN', payment_methods: ['CARD', 'BANK'], redirect_url: `${SHOP}/thanks` });
    const before = await balance(live.client, 'NGN');
    const { page, landed } = await openAndPick(link, 'Card');
    await page.getByLabel('Name on the card (card payments)').fill('Adaeze Okafor');
    await page.getByLabel('Email (card payments)').fill('adaeze@customer.example');
    await PAY(page);
    await page.waitForURL(new RegExp(`^${live.paystack.url}/checkout/`));
    await page.getByText('NGN 25000.00').waitFor();
    await PAY(page);
    await page.getByRole('heading', { name: '3-D Secure' }).waitFor();
    await page.getByRole('button', { name: 'Authenticate' }).click();
    await eventually(async () => landed.length > 0 || undefined, 15_000, 'the customer back at the shop');
    const ref = await paidOnce({ svc: live.svc, client: live.client, received: live.hooks.received, link, method: 'CARD', currency: 'NGN', amount: 25000, before });
    const back = new URL(landed.at(-1)!);
    expect([back.pathname, back.searchParams.get('gateway_reference'), back.searchParams.get('status')]).toEqual(['/thanks', ref, 'COMPLETED']);
    await page.context().close();
  }, 60_000);
});
