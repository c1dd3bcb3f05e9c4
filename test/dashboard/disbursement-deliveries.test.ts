// Proves, in Chromium against a real service and database, that the business's delivery log shows a disbursement's notifications beside a payment's: each of the disbursement's rows says it is a disbursement, with its status and delivery, and links to the disbursement's page (not a payment's), and only the payment's row offers a re-send.
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, signIn } from '../helpers/dashboard';
import { disbursingMerchant, eventually } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { createUser } from '../helpers/users';

let svc: TestService;
let browser: Browser;
let receiver: Receiver;
let shop: MerchantSetup;
let payment: string;
let payout: string;

const db = () => svc.database.db;

beforeAll(async () => {
  receiver = await startReceiver();
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '3600000', PROCESSOR_CHECK_SCHEDULE: '100ms,200ms' } });
  shop = await disbursingMerchant(svc, 50000, { webhookUrl: receiver.url });
  payment = (await db().one('SELECT gateway_reference FROM collections WHERE business_id = $1', [shop.businessId])).gateway_reference;
  const res = await shop.client.post('/v1/disbursements', {
    amount: 10000, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123456', account_name: 'Okello Transport', merchant_reference: 'PAY-LOG-0001',
  }, { headers: { 'secret-key': shop.apiSecret } });
  expect(res.status).toBe(200);
  payout = res.body.data.gateway_reference;
  // the payout's two notifications (PROCESSING, COMPLETED) and the payment's, all delivered
  await eventually(async () => {
    const n = await db().one('SELECT count(*)::int AS n FROM notifications n JOIN disbursements d ON d.id = n.disbursement_id WHERE d.gateway_reference = $1 AND n.delivered_at IS NOT NULL', [payout]);
    const c = await db().one('SELECT count(*)::int AS n FROM notifications n JOIN collections c ON c.id = n.collection_id WHERE c.gateway_reference = $1 AND n.delivered_at IS NOT NULL', [payment]);
    return n.n === 2 && c.n >= 1 ? true : undefined;
  }, 20_000, 'every notification delivered');
  browser = (await launchBrowser()) as Browser;
}, 180_000);
afterAll(() => closeAll(browser, receiver, svc));

describeBrowser('disbursements in the delivery log in Chromium', () => {
  it("shows the disbursement's notifications as a disbursement's, linked to its page", async () => {
    const developer = await createUser(svc, { role: 'merchant_developer', business_id: shop.businessId });
    const page = await dashboardPage(browser, svc, '/deliveries');
    await signIn(page, developer.email, developer.password);
    await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
    const log = page.getByRole('region', { name: 'Deliveries' });
    const rowsOf = (ref: string) => log.getByRole('row').filter({ has: page.getByRole('link', { name: ref }) });
    await rowsOf(payout).first().waitFor();
    await rowsOf(payment).first().waitFor();

    const payoutRows = await rowsOf(payout).evaluateAll((trs) => trs.map((tr) => tr.textContent ?? ''));
    expect(payoutRows).toHaveLength(2);
    // newest first: COMPLETED, then PROCESSING; each says it is a disbursement and was delivered
    expect(payoutRows[0]).toMatch(new RegExp(`disbursement ${payout}.*COMPLETED.*delivered`));
    expect(payoutRows[1]).toMatch(new RegExp(`disbursement ${payout}.*PROCESSING.*delivered`));
    for (const text of await rowsOf(payment).evaluateAll((trs) => trs.map((tr) => tr.textContent ?? ''))) expect(text).not.toContain('disbursement');
    // a payment's notification may be re-sent from here; a disbursement's has no button
    expect(await rowsOf(payment).first().getByRole('button', { name: `Re-send webhook of ${payment}` }).count()).toBe(1);
    expect(await rowsOf(payout).getByRole('button').count()).toBe(0);
    expect(await rowsOf(payout).first().getByRole('link', { name: payout }).getAttribute('href')).toBe(`/dashboard/disbursements/${payout}`);

    await rowsOf(payout).first().getByRole('link', { name: payout }).click();
    await page.getByRole('heading', { name: `Disbursement ${payout}` }).waitFor();
    await page.getByText('PAY-LOG-0001').waitFor();
    await page.context().close();
  }, 120_000);
});
