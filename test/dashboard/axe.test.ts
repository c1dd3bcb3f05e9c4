// Proves, in Chromium against a real service and database, that axe-core (the accessibility engine
// browsers' own audits use) finds no serious or critical violation on any dashboard page: the sign-in
// page, the accept-invitation page, every page of the operator console signed in as an operator admin, and every page of the
// merchant portal signed in as a merchant's owner, with data on them (a business, MIDs, a payment and its refund, a payment link, a market rate jump held), and a
// phone's header with its menu open.
import type { Browser, Page } from 'playwright-core';
import { seriousViolations } from '../helpers/axe';
import { launchBrowser } from '../helpers/browser';
import { openDispute } from '../helpers/disputes';
import { closeAll, dashboardPage, describeBrowser, PHONE, signIn } from '../helpers/dashboard';
import { FakeEcb } from '../fakes/ecb';
import { mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, tokenFromOutbox, totpCode } from '../helpers/users';

const clock = new Clock();
const ecb = new FakeEcb({ date: '2026-11-25', rates: { KES: '140.5' } });
let svc: TestService;
let browser: Browser;
let shop: MerchantSetup;
let paid: string;
let disbursed: string;

/** Opens each address, waits until its heading is shown and nothing is loading, and scans it; returns what axe found, by address. */
async function scan(page: Page, paths: string[]): Promise<Record<string, string[]>> {
  const found: Record<string, string[]> = {};
  for (const path of paths) {
    await page.goto(`${svc.url}/dashboard${path}`);
    await page.locator('main h1').first().waitFor();
    await page.getByText(/^Loading .*…$/).first().waitFor({ state: 'detached' }).catch(() => undefined);
    await page.waitForFunction(() => !/Loading [^…]*…/.test(document.body.innerText));
    const v = await seriousViolations(page);
    if (v.length) found[path] = v;
  }
  return found;
}

beforeAll(async () => {
  await ecb.start();
  svc = await startTestService({ now: clock.now, env: { SANDBOX_MM_DELAY_MS: '3600000', ECB_RATES_BASE_URL: ecb.url } });
  // a feed's rate and a jump held over it, so the Market rates page shows its pairs, feeds and held jumps with their buttons
  await svc.services.rates.refresh('ecb');
  ecb.day = { date: '2026-11-26', rates: { KES: '170' } };
  expect(await svc.services.rates.refresh('ecb')).toMatchObject({ held: 1 });
  shop = await setupMerchant(svc, { name: 'Axe Shop', mids: [{ payment_method: 'MOBILE_MONEY', currency: 'UGX' }, { payment_method: 'CARD', currency: 'UGX' }] });
  const r = await shop.client.post('/v1/collections/request-to-pay', mobileMoney({ amount: 25000 }));
  expect(r.status).toBe(200);
  paid = r.body.data.gateway_reference;
  expect((await shop.client.post(`/v1/sandbox/collections/${paid}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
  // a refund, so the refunds lists and the payment's refunds have a row to scan
  expect((await shop.client.post(`/v1/collections/${paid}/refunds`, { amount: 1000, merchant_reference: 'RFD-AXE-1' })).status).toBe(200);
  // a disbursement waiting for approval, so its page shows the Approve and Reject buttons and its timeline
  await svc.database.db.none("UPDATE mids SET disburses = true WHERE business_id = $1 AND payment_method = 'MOBILE_MONEY'", [shop.businessId]);
  await svc.database.db.none('UPDATE wallets SET disbursement_approval_threshold_minor = 100000 WHERE business_id = $1', [shop.businessId]);
  const d = await shop.client.post('/v1/disbursements', {
    amount: 5000, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123503', account_name: 'Axe Payee', merchant_reference: 'AXE-PAY-1',
  }, { headers: { 'secret-key': shop.apiSecret } });
  expect(d.status).toBe(200);
  disbursed = d.body.data.gateway_reference;
  // a payment link, so the Payment links page shows a link's card (its URL, QR code and Deactivate) beside the form
  expect((await shop.client.post('/v1/payment-links', { title: 'Axe link', min_amount: 1000, max_amount: 5000, currency: 'UGX', payment_methods: ['MOBILE_MONEY'] })).status).toBe(200);
  // a card dispute, so the Disputes pages show a row with its countdown (and for the owner, Accept)
  await openDispute(svc, shop);
  browser = (await launchBrowser()) as Browser;
}, 180_000);
afterAll(async () => {
  await closeAll(browser, svc);
  await ecb.stop();
});

describeBrowser('an accessibility scan (axe-core) of every dashboard page', () => {
  it('finds no serious or critical violation on the sign-in page', async () => {
    const page = await dashboardPage(browser, svc, '/');
    await page.getByRole('form', { name: 'Sign in' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    // the scan does see: a button with no name planted on the page is a critical violation
    await page.evaluate(() => document.querySelector('main, body')?.append(Object.assign(document.createElement('button'), { id: 'planted' })));
    expect(await seriousViolations(page)).toEqual([expect.stringMatching(/^critical button-name: .*#planted/)]);
    await page.context().close();
  }, 120_000);

  it('finds none on the accept-invitation page, which says what the invitation is for', async () => {
    expect((await svc.admin.post('/v1/admin/invitations', { email: 'axe.invitee@people.example', role: 'merchant_viewer', business_id: shop.businessId })).status).toBe(200);
    const token = await tokenFromOutbox(svc, 'axe.invitee@people.example', 'accept-invitation');
    const page = await dashboardPage(browser, svc, `/accept-invitation?token=${token}`);
    await page.getByRole('form', { name: 'Accept invitation' }).waitFor();
    await page.getByText('You are invited to Axe Shop').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  }, 120_000);

  it("finds none on any page of the operator console, signed in as an operator admin", async () => {
    const operator = await createUser(svc, { role: 'operator_admin', totp: true });
    const page = await dashboardPage(browser, svc, '/overview');
    clock.advance(30_000);
    await signIn(page, operator.email, operator.password, totpCode(svc));
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    const paths = ['/overview', '/businesses', '/businesses/new', ...['', '/wallets', '/statement', '/mids', '/tokens', '/go-live'].map((s) => `/businesses/${shop.businessId}${s}`), '/collections', '/collections?held=true', `/collections/${paid}`, '/refunds', '/disputes', '/disbursements', `/disbursements/${disbursed}`, '/reports/settlement', `/reconciliation?mid=${Object.values(shop.midIds)[0]}&day=2026-03-14`, '/go-live-requests', '/webhooks', '/rates', '/card-keys', '/users', '/audit', '/account'];
    expect(await scan(page, paths)).toEqual({});
    await page.context().close();
  }, 300_000);

  it("finds none on any page of the merchant portal, signed in as a merchant's owner", async () => {
    // with an authenticator, so the New disbursement page shows its form
    const owner = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId, totp: true });
    const page = await dashboardPage(browser, svc, '/overview');
    clock.advance(30_000);
    await signIn(page, owner.email, owner.password, totpCode(svc));
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    const paths = ['/overview', '/payments', `/payments/${paid}`, '/payment-links', '/refunds', '/disputes', '/disbursements', '/disbursements?status=PENDING_APPROVAL', '/disbursements/new', `/disbursements/${disbursed}`, '/balances', '/statement', '/developers', '/deliveries', '/go-live', '/team', '/audit', '/account'];
    expect(await scan(page, paths)).toEqual({});
    await page.context().close();
  }, 300_000);

  it("finds none on a phone with the header's menu open", async () => {
    const owner = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId });
    const page = await dashboardPage(browser, svc, '/payments', PHONE);
    await signIn(page, owner.email, owner.password);
    await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
    const toggle = page.getByRole('button', { name: 'Menu' });
    await toggle.click();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Balances' }).waitFor();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  }, 120_000);
});
