// Proves, in Chromium against a real service and database, the Disbursements pages: an owner opens the approval queue (the filter kept in the address), opens one waiting for approval, reads who may approve and with what, reads what approving pays (amount, payee, fee) before anything is sent, sees a new one's balance, fee and whether it needs approval before asking, is refused a wrong code at the field and approves it with a current one, and the database
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, download, fieldError, fitsWidth, navTo, PHONE, signIn } from '../helpers/dashboard';
import { parseCsv } from '../reports/csv';
import { disbursingMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { createUser, TOTP_SECRET, totpCode } from '../helpers/users';
import type { TestUser } from '../helpers/users';
import { currentCode } from '../../src/people/totp';
import { moneyText } from '../../src/domain/currencies';

let svc: TestService;
let browser: Browser;
let shop: MerchantSetup;
let other: MerchantSetup;
let waiting: string;
let asked: string;
let asker: TestUser;

const db = () => svc.database.db;

async function disburse(amount: number, reference: string, m = shop) {
  const res = await m.client.post('/v1/disbursements', {
    amount, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123503', account_name: 'Okello Transport', merchant_reference: reference,
  }, { headers: { 'secret-key': m.apiSecret } });
  expect(res.status).toBe(200);
  return res.body.data.gateway_reference as string;
}

beforeAll(async () => {
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '3600000' } });
  shop = await disbursingMerchant(svc, 50000);
  other = await disbursingMerchant(svc, 50000);
  await db().none("UPDATE wallets SET disbursement_approval_threshold_minor = 100000 WHERE business_id = $1", [shop.businessId]);
  await disburse(700, 'PAY-UI-OTHER', other);
  await disburse(500, 'PAY-UI-SMALL');
  waiting = await disburse(5000, 'PAY-UI-BIG');
  asked = await disburse(6000, 'PAY-UI-MINE');
  asker = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId });
  // as if asked for in the dashboard by this owner
  await db().none('UPDATE disbursements SET requested_by_user_id = $2 WHERE gateway_reference = $1', [asked, asker.id]);
  browser = (await launchBrowser()) as Browser;
}, 180_000);
afterAll(() => closeAll(browser, svc));

async function opened(user: TestUser, path: string, viewport?: typeof PHONE, totp = user.business_id === null) {
  const page = await dashboardPage(browser, svc, path, viewport);
  await signIn(page, user.email, user.password, totp ? totpCode(svc) : undefined);
  return page;
}

describeBrowser('disbursements in the dashboard in Chromium', () => {
  it('lets an owner approve one from the approval queue with their authenticator\'s code, kept in the address', async () => {
    const owner = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId, totp: true });
    const page = await opened(owner, '/disbursements', undefined, true);
    await page.getByRole('heading', { name: 'Disbursements', exact: true }).waitFor();
    await page.getByLabel('Status').selectOption('PENDING_APPROVAL');
    await page.getByRole('heading', { name: 'Disbursements waiting for approval' }).waitFor();
    expect(page.url()).toContain('/disbursements?status=PENDING_APPROVAL');
    const table = page.getByRole('region', { name: 'Disbursements found' });
    // the unfiltered list stays on screen until the filtered one replaces it: wait for the small one to go
    await table.getByRole('row', { name: /PAY-UI-SMALL/ }).waitFor({ state: 'detached' });
    await table.getByRole('row', { name: /PAY-UI-BIG/ }).waitFor();
    expect(await table.getByRole('row', { name: /PAY-UI-SMALL/ }).count()).toBe(0);
    // a reload keeps the filter
    await page.reload();
    await page.getByRole('heading', { name: 'Disbursements waiting for approval' }).waitFor();
    await page.getByRole('link', { name: 'PAY-UI-BIG' }).click();
    await page.getByRole('heading', { name: `Disbursement ${waiting}` }).waitFor();
    // the page says who may approve, and with what
    const approval = page.getByRole('region', { name: 'Approval' });
    expect(await approval.textContent()).toContain('Four eyes need two people: an owner approves with the code of their authenticator app');
    // a wrong code is refused at the field, and changes nothing
    const form = page.getByRole('form', { name: 'Approve' });
    await form.getByLabel('Authenticator code').fill('000000');
    await form.getByRole('button', { name: 'Approve' }).click();
    // nothing is sent before the summary is confirmed
    const confirm = form.getByRole('group', { name: 'Confirm the approval' });
    const fee = await db().one('SELECT fee_minor::text AS fee FROM disbursements WHERE gateway_reference = $1', [waiting]);
    expect(await confirm.textContent()).toContain(
      `Approve paying 5,000 UGX to Okello Transport (phone 256772123503), reference PAY-UI-BIG. The fee is ${moneyText(BigInt(fee.fee), 'UGX')}, so ${moneyText(500000n + BigInt(fee.fee), 'UGX')} leaves the UGX wallet.`,
    );
    expect((await db().one('SELECT status FROM disbursements WHERE gateway_reference = $1', [waiting])).status).toBe('PENDING_APPROVAL');
    await confirm.getByRole('button', { name: 'Confirm approval' }).click();
    await form.getByText('The code is wrong or was already used').waitFor();
    expect((await db().one('SELECT status FROM disbursements WHERE gateway_reference = $1', [waiting])).status).toBe('PENDING_APPROVAL');
    // the code of the next 30-second step: the one given at sign-in is used
    await form.getByLabel('Authenticator code').fill(totpCode(svc, TOTP_SECRET, 1));
    await form.getByRole('button', { name: 'Approve' }).click();
    await confirm.getByRole('button', { name: 'Confirm approval' }).click();
    const payout = page.getByRole('region', { name: 'Payout' });
    await payout.getByText(owner.email).waitFor();
    expect(await db().one('SELECT status, decided_by_user_id FROM disbursements WHERE gateway_reference = $1', [waiting])).toMatchObject({ decided_by_user_id: owner.id });
    expect((await db().one('SELECT status FROM disbursements WHERE gateway_reference = $1', [waiting])).status).not.toBe('PENDING_APPROVAL');
    const timeline = page.getByRole('region', { name: 'Timeline' });
    await timeline.getByText('Approved PENDING').waitFor();
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await page.context().close();
  }, 120_000);

  it('shows the owner who asked no Approve on their own, only Reject, and changes nothing', async () => {
    const page = await opened(asker, `/disbursements/${asked}`);
    await page.getByText('You asked for this disbursement: another owner must approve it. You may reject it.').waitFor();
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Reject' }).count()).toBe(1);
    expect((await db().one('SELECT status FROM disbursements WHERE gateway_reference = $1', [asked])).status).toBe('PENDING_APPROVAL');
    await page.context().close();
  }, 120_000);

  it('lets an owner set up an authenticator and ask for a disbursement, shown waiting for approval; a developer sees no New disbursement', async () => {
    const owner = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId });
    const page = await opened(owner, '/account');
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    await page.getByRole('button', { name: 'Show my secret' }).click();
    const secret = (await page.getByTestId('totp-secret').textContent()) ?? '';
    await page.getByLabel('Code from the app').fill(currentCode(secret, svc.services.now()));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('button', { name: 'I have stored the codes' }).click();
    await navTo(page, 'Disbursements');
    await page.getByRole('link', { name: 'New disbursement' }).click();
    const form = page.getByRole('form', { name: 'New disbursement' });
    expect(await form.getByLabel('Wallet currency').inputValue()).toBe('UGX');
    const reference = await form.getByLabel('Merchant reference').inputValue();
    expect(reference).toMatch(/^DASH-\d{8}-[A-Z2-9]{6}$/);
    // before anything is sent: the balance, the fee, what leaves the wallet, and whether it waits for approval
    const preview = form.getByRole('group', { name: 'What this payout does' });
    const available = (await shop.client.get('/v1/data/wallets/UGX/balance')).body.data.available_balance as number;
    await preview.getByText(`Available in the UGX wallet: ${moneyText(BigInt(Math.round(available * 100)), 'UGX')}.`).waitFor();
    await form.getByLabel('Amount').fill('500');
    await preview.getByText("Payouts above 1,000 UGX need another owner's approval; up to that they are sent at once.").waitFor();
    expect(await form.getByRole('button', { name: 'Send payout' }).count()).toBe(1);
    await form.getByLabel('Amount').fill('2000');
    await preview.getByText("Above this wallet's approval threshold (1,000 UGX): it needs another owner's approval before it is sent.").waitFor();
    const promised = (await preview.textContent()) ?? '';
    expect(await form.getByRole('button', { name: 'Send payout' }).count()).toBe(0);
    await form.getByLabel('Phone number').fill('25677212');
    await form.getByLabel('Account name').fill('Okello Transport');
    // the code of the next 30-second step: the one just given at set-up is used
    const code = currentCode(secret, new Date(svc.services.now().getTime() + 30_000));
    await form.getByLabel('Authenticator code').fill(code);
    await form.getByRole('button', { name: 'Request payout' }).click();
    await fieldError(page, 'New disbursement', 'account_number').getByText(/10 to 15 digits/).waitFor();
    expect(await db().one('SELECT count(*)::int AS n FROM disbursements WHERE merchant_reference = $1', [reference])).toEqual({ n: 0 });
    await form.getByLabel('Phone number').fill('256772123456');
    // refused for a field, the request used nothing up, the code included
    await form.getByLabel('Authenticator code').fill(code);
    await form.getByRole('button', { name: 'Request payout' }).click();
    await page.getByRole('heading', { name: /^Disbursement DB/ }).waitFor();
    await page.getByText('You asked for this disbursement: another owner must approve it. You may reject it.').waitFor();
    await page.getByRole('region', { name: 'Timeline' }).getByText('Asked for PENDING_APPROVAL').waitFor();
    const row = await db().one('SELECT status, requested_by_user_id, gateway_reference FROM disbursements WHERE merchant_reference = $1', [reference]);
    expect(row).toMatchObject({ status: 'PENDING_APPROVAL', requested_by_user_id: owner.id });
    // the preview's fee is the one the server took
    const { fee } = await db().one('SELECT fee_minor::text AS fee FROM disbursements WHERE merchant_reference = $1', [reference]);
    expect(promised).toContain(`The payee receives 2,000 UGX; the fee is ${moneyText(BigInt(fee), 'UGX')}, so ${moneyText(200000n + BigInt(fee), 'UGX')} leaves the wallet and `);
    expect(page.url()).toContain(`/disbursements/${row.gateway_reference}`);
    await page.context().close();

    const developer = await createUser(svc, { role: 'merchant_developer', business_id: shop.businessId });
    const other = await opened(developer, '/disbursements');
    await other.getByRole('row', { name: /PAY-UI-SMALL/ }).waitFor();
    expect(await other.getByRole('link', { name: 'New disbursement' }).count()).toBe(0);
    await other.context().close();
  }, 120_000);

  it('adds "ask an administrator" to a refusal of the role table only, not to one that says what to do', async () => {
    const owner = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId, totp: true });
    const page = await dashboardPage(browser, svc, '/disbursements');
    await signIn(page, owner.email, owner.password, totpCode(svc));
    await page.getByRole('link', { name: 'New disbursement' }).click();
    const form = page.getByRole('form', { name: 'New disbursement' });
    const reference = await form.getByLabel('Merchant reference').inputValue();
    await form.getByLabel('Amount').fill('1500');
    await form.getByLabel('Phone number').fill('256772123456');
    await form.getByLabel('Account name').fill('Okello Transport');
    const payOut = async () => {
      // the sign-in's step is used: the next one
      await form.getByLabel('Authenticator code').fill(totpCode(svc, undefined, 1));
      await form.getByRole('button', { name: 'Request payout' }).click();
    };
    const none = async () => expect(await db().one('SELECT count(*)::int AS n FROM disbursements WHERE merchant_reference = $1', [reference])).toEqual({ n: 0 });

    // the authenticator removed while the form is open (another tab): the server says what to do, and that is all
    const { totp_secret_enc: sealed } = await db().one('SELECT totp_secret_enc FROM users WHERE id = $1', [owner.id]);
    await db().none('UPDATE users SET totp_secret_enc = NULL, totp_enabled_at = NULL WHERE id = $1', [owner.id]);
    await payOut();
    const alert = form.getByRole('alert');
    await alert.getByText('Set up an authenticator app in Account first; money out from the dashboard (a disbursement, an approval) needs its code.', { exact: true }).waitFor();
    expect(await alert.textContent()).not.toContain('administrator');
    await none();

    // an owner made a developer meanwhile: the role table refuses, and only an administrator can change that
    await db().none("UPDATE users SET totp_secret_enc = $2, totp_enabled_at = now(), role = 'merchant_developer' WHERE id = $1", [owner.id, sealed]);
    await payOut();
    await alert.getByText('Your role may not do this. Ask an administrator of your account if you need this.', { exact: true }).waitFor();
    await none();
    await page.context().close();
  }, 120_000);

  it('shows a viewer the list as cards fitting a phone, without decision buttons', async () => {
    const viewer = await createUser(svc, { role: 'merchant_viewer', business_id: shop.businessId });
    const page = await opened(viewer, '/disbursements', PHONE);
    await page.getByRole('row', { name: /PAY-UI-MINE/ }).waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await page.goto(page.url().replace(/\/disbursements.*$/, `/disbursements/${asked}`));
    await page.getByRole('heading', { name: `Disbursement ${asked}` }).waitFor();
    await page.getByRole('region', { name: 'Approval' }).waitFor();
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await page.context().close();
  }, 120_000);

  it("downloads what each Disbursements page lists: a merchant's own business, an operator's every business, with the status filter", async () => {
    /** the disbursements the file should hold, newest first, as the database has them */
    const expected = async (businessId: number | null, status: string | null) =>
      (await db().any(
        'SELECT gateway_reference FROM disbursements WHERE ($1::int IS NULL OR business_id = $1) AND ($2::text IS NULL OR status = $2) ORDER BY created_at DESC, id DESC',
        [businessId, status],
      )).map((r: { gateway_reference: string }) => r.gateway_reference);
    const references = (text: string) => parseCsv(text).map((r) => r.gateway_reference);

    const viewer = await createUser(svc, { role: 'merchant_viewer', business_id: shop.businessId });
    const merchant = await opened(viewer, '/disbursements');
    await merchant.getByRole('row', { name: /PAY-UI-MINE/ }).waitFor();
    const own = await download(merchant, 'Download CSV');
    expect(own.file).toMatch(/^disbursements-\d{4}-\d\d-\d\d\.csv$/);
    expect(references(own.text)).toEqual(await expected(shop.businessId, null));
    expect(references(own.text).length).toBeGreaterThanOrEqual(3);
    await merchant.getByLabel('Status').selectOption('PENDING_APPROVAL');
    await merchant.getByRole('heading', { name: 'Disbursements waiting for approval' }).waitFor();
    const waitingOnes = references((await download(merchant, 'Download CSV')).text);
    expect(waitingOnes).toEqual(await expected(shop.businessId, 'PENDING_APPROVAL'));
    expect(waitingOnes).toContain(asked);
    await merchant.context().close();

    const operator = await createUser(svc, { role: 'operator_support', totp: true });
    const page = await opened(operator, '/disbursements');
    await page.getByRole('row', { name: /PAY-UI-OTHER/ }).waitFor();
    const all = references((await download(page, 'Download CSV')).text);
    expect(all).toEqual(await expected(null, null));
    expect(all.length).toBeGreaterThanOrEqual(4);
    await page.getByLabel('Status').selectOption('PENDING_APPROVAL');
    await page.getByRole('heading', { name: 'Disbursements waiting for approval' }).waitFor();
    expect(references((await download(page, 'Download CSV')).text)).toEqual(await expected(null, 'PENDING_APPROVAL'));
    await page.context().close();
  }, 120_000);

  it('shows the operator every business\'s disbursements with the business', async () => {
    const operator = await createUser(svc, { role: 'operator_support', totp: true });
    const page = await opened(operator, '/disbursements');
    const row = page.getByRole('row', { name: /PAY-UI-SMALL/ });
    await row.waitFor();
    const name = (await db().one('SELECT name FROM businesses WHERE id = $1', [shop.businessId])).name;
    expect(await row.textContent()).toContain(name);
    await page.context().close();
  }, 120_000);
});
