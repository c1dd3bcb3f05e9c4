// Proves, in Chromium against a real service and database, that a payout waiting for approval is shown to
// the owner who can decide it where they look first: a first owner's payout waits; a second owner who joins
// afterwards signs in, reads on the Overview how many wait and how many for them, sees the count on the
// menu's Disbursements item, follows the Overview's link, approves from the summary, and the badge goes;
// the owner who asked sees it waiting, but not for them, and no badge.
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, signIn } from '../helpers/dashboard';
import { disbursingMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { createUser, TOTP_SECRET, totpCode } from '../helpers/users';
import type { TestUser } from '../helpers/users';

let svc: TestService;
let browser: Browser;
let shop: MerchantSetup;
let asker: TestUser;
let waiting: string;

const db = () => svc.database.db;
const statusOf = async (reference: string) => (await db().one<{ status: string }>('SELECT status FROM disbursements WHERE gateway_reference = $1', [reference])).status;

beforeAll(async () => {
  // a new owner may approve at once, so the one who joins after the request is the one it waits for
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '3600000', OWNER_APPROVAL_WAIT_HOURS: '0' } });
  shop = await disbursingMerchant(svc, 50000);
  await db().none('UPDATE wallets SET disbursement_approval_threshold_minor = 100000 WHERE business_id = $1', [shop.businessId]);
  asker = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId });
  const res = await shop.client.post('/v1/disbursements', {
    amount: 5000, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123503', account_name: 'Okello Transport', merchant_reference: 'PAY-WAIT-1',
  }, { headers: { 'secret-key': shop.apiSecret } });
  expect(res.status).toBe(200);
  waiting = res.body.data.gateway_reference;
  // as if the first owner had asked for it in the dashboard
  await db().none('UPDATE disbursements SET requested_by_user_id = $2 WHERE gateway_reference = $1', [waiting, asker.id]);
  browser = (await launchBrowser()) as Browser;
}, 180_000);
afterAll(() => closeAll(browser, svc));

const menuItem = (page: Page) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^Disbursements/ });

describeBrowser('decisions waiting for a merchant person in Chromium', () => {
  it('shows an owner who joined after the request that it waits for them, on the Overview and the menu, until they approve it', async () => {
    const second = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId, totp: true, fresh: true });
    const page = await dashboardPage(browser, svc, '/overview');
    await signIn(page, second.email, second.password, totpCode(svc));
    const region = page.getByRole('region', { name: 'Waiting for a decision' });
    await region.getByText('(1 for you)').waitFor();
    const words = (await region.textContent())?.replace(/\s+/g, ' ');
    expect(words).toContain('1disbursement waiting for approval (1 for you)');
    // a refund held for an operator is the operators' to decide: a merchant reads it as the API says, PROCESSING
    expect(words).not.toMatch(/refund/i);
    expect(await menuItem(page).getByRole('img', { name: '1 waiting for your approval' }).count()).toBe(1);
    await region.getByRole('link', { name: 'disbursement waiting for approval' }).click();
    await page.getByRole('heading', { name: 'Disbursements waiting for approval' }).waitFor();
    expect(page.url()).toContain('/disbursements?status=PENDING_APPROVAL');
    await page.getByRole('link', { name: 'PAY-WAIT-1' }).click();
    await page.getByRole('heading', { name: `Disbursement ${waiting}` }).waitFor();
    const form = page.getByRole('form', { name: 'Approve' });
    // the code of the next 30-second step: the one given at sign-in is used
    await form.getByLabel('Authenticator code').fill(totpCode(svc, TOTP_SECRET, 1));
    await form.getByRole('button', { name: 'Approve' }).click();
    await form.getByRole('group', { name: 'Confirm the approval' }).getByRole('button', { name: 'Confirm approval' }).click();
    await page.getByRole('region', { name: 'Payout' }).getByText(second.email).waitFor();
    // the session is read again after the decision: the badge goes without a reload
    await menuItem(page).getByRole('img').waitFor({ state: 'detached' });
    expect(await db().one('SELECT decided_by_user_id FROM disbursements WHERE gateway_reference = $1', [waiting])).toEqual({ decided_by_user_id: second.id });
    expect(await statusOf(waiting)).not.toBe('PENDING_APPROVAL');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('region', { name: 'Waiting for a decision' }).getByText('0disbursements waiting for approval').waitFor();
    await page.context().close();
  }, 120_000);

  it('shows the owner who asked that it waits, but not for them, and no badge', async () => {
    const res = await shop.client.post('/v1/disbursements', {
      amount: 6000, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123503', account_name: 'Okello Transport', merchant_reference: 'PAY-WAIT-2',
    }, { headers: { 'secret-key': shop.apiSecret } });
    expect(res.status).toBe(200);
    await db().none('UPDATE disbursements SET requested_by_user_id = $2 WHERE gateway_reference = $1', [res.body.data.gateway_reference, asker.id]);
    const page = await dashboardPage(browser, svc, '/overview');
    await signIn(page, asker.email, asker.password);
    const region = page.getByRole('region', { name: 'Waiting for a decision' });
    await region.getByText('(none for you)').waitFor();
    expect((await region.textContent())?.replace(/\s+/g, ' ')).toContain('1disbursement waiting for approval (none for you)');
    expect(await menuItem(page).getByRole('img').count()).toBe(0);
    expect(await menuItem(page).textContent()).toBe('Disbursements');
    expect(await statusOf(res.body.data.gateway_reference)).toBe('PENDING_APPROVAL');
    await page.context().close();
  }, 120_000);
});
