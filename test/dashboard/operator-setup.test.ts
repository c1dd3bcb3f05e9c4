// Proves, in Chromium against a real service and database, that an operator signs in (password and authenticator
// code, from the keyboard) and takes a business from nothing to a verified live merchant in the browser only, through the business page's parts at their own addresses (terms, wallets, MIDs, API tokens, go-live review), that refusals show the API's own words next to the field and change
// nothing, that an API secret is shown once then only masked, and that a third token is refused.
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, fieldError, navTo } from '../helpers/dashboard';
import { startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, totpCode } from '../helpers/users';
import type { TestUser } from '../helpers/users';

let svc: TestService;
let browser: Browser;
let receiver: Receiver;
let operator: TestUser;
const clock = new Clock();
/** A fresh database, a service and Chromium take a while on a loaded machine. */
const SETUP_MS = 180_000;

beforeAll(async () => {
  svc = await startTestService({ now: clock.now });
  operator = await createUser(svc, { role: 'operator_admin', totp: true });
  receiver = await startReceiver();
  browser = (await launchBrowser()) as Browser;
}, SETUP_MS);
afterAll(() => closeAll(browser, receiver, svc));

const count = async (table: string) => Number((await svc.database.db.one(`SELECT count(*) AS n FROM ${table}`)).n);

/** The message the API itself gives for a request, to compare with what the page shows. */
async function apiMessage(method: 'post', path: string, body: unknown, field?: string): Promise<string> {
  const res = await svc.admin[method](path, body);
  expect(res.status).toBe(400);
  return field ? res.body.data.find((f: { field: string }) => f.field === field).message : res.body.message;
}

async function createToken(page: Page, hash: string): Promise<void> {
  const form = page.getByRole('form', { name: 'New API token' });
  await form.getByLabel('Webhook URL').fill(receiver.url);
  await form.getByLabel('Webhook hash (signing secret)').fill(hash);
  await form.getByLabel('Notification email').fill('payments@kampalabooks.example');
  await form.getByRole('button', { name: 'Create token' }).click();
}

describeBrowser('operator console in Chromium', () => {
  it('sets up a business from nothing to a verified live merchant', async () => {
    const page = await dashboardPage(browser, svc);

    // A wrong password is refused in the API's words; the right one and the code, typed from the keyboard, sign in.
    await page.getByLabel('Email').fill(operator.email);
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const refused = (await svc.anon.post('/v1/admin/session', { email: operator.email, password: 'not the password either' })).body.message;
    await page.getByRole('alert').getByText(refused).waitFor();
    await page.getByLabel('Password').focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type(operator.password);
    await page.keyboard.press('Enter');
    await page.getByLabel('Authenticator code').waitFor();
    await page.keyboard.type(totpCode(svc));
    await page.keyboard.press('Enter');
    // signing in lands on the operators' Overview; the businesses are a link away
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).getAttribute('aria-current')).toBe('page');
    await navTo(page, 'Businesses');
    await page.getByRole('heading', { name: 'Businesses' }).waitFor();
    await page.getByText('No business yet').waitFor();

    // A currency the API refuses: its message next to the field, no business written.
    await page.getByRole('link', { name: 'New business' }).click();
    const terms = page.getByRole('form', { name: 'Business terms' });
    await terms.getByLabel('Business name').fill('Kampala Books Ltd');
    await terms.getByLabel('Default wallet currency').fill('ug');
    await terms.getByRole('button', { name: 'Create business' }).click();
    const badCurrency = await apiMessage('post', '/v1/admin/businesses', { name: 'x', default_currency: 'UG' }, 'default_currency');
    await expectText(fieldError(page, 'Business terms', 'default_currency'), badCurrency);
    expect(await count('businesses')).toBe(0);

    await terms.getByLabel('Default wallet currency').fill('UGX');
    await terms.getByLabel('Rolling reserve (%)').fill('10');
    await terms.getByLabel('Reserve held for (months)').fill('6');
    await terms.getByLabel('Card settlement (days)').fill('3');
    await terms.getByLabel('Fee paid by').selectOption('customer');
    await terms.getByLabel('MOBILE_MONEY percent').fill('3');
    await terms.getByLabel('BANK fixed').fill('500');
    await terms.getByRole('button', { name: 'Create business' }).click();
    await page.getByRole('heading', { name: /Kampala Books Ltd/ }).waitFor();
    const business = await svc.database.db.one('SELECT * FROM businesses');
    expect(business).toMatchObject({ name: 'Kampala Books Ltd', default_currency: 'UGX', rolling_reserve_months: 6, card_settlement_days: 3, fee_bearer: 'customer' });
    expect(Number(business.rolling_reserve_percent)).toBe(10);
    const fees = await svc.database.db.any('SELECT payment_method, percent::text, fixed_minor::text FROM business_fees ORDER BY payment_method');
    expect(fees.map((f) => f.payment_method)).toEqual(['BANK', 'MOBILE_MONEY']);

    // The business's page is split: the terms alone, then each part at its own address.
    const sections = page.getByRole('navigation', { name: 'Business sections' });
    expect(await sections.getByRole('link').allTextContents()).toEqual(['Terms and fees', 'Wallets', 'Statement', 'MIDs', 'API tokens', 'Go-live review']);
    expect(await sections.getByRole('link', { name: 'Terms and fees' }).getAttribute('aria-current')).toBe('page');
    expect(await page.getByRole('form', { name: 'Add a wallet' }).count()).toBe(0);
    expect(await page.getByRole('region', { name: 'MIDs (routing terminals)' }).count()).toBe(0);

    // A second wallet.
    await sections.getByRole('link', { name: 'Wallets', exact: true }).click();
    expect(page.url()).toBe(`${svc.url}/dashboard/businesses/${business.id}/wallets`);
    expect(await page.getByRole('form', { name: 'Business terms' }).count()).toBe(0);
    const wallet = page.getByRole('form', { name: 'Add a wallet' });
    await wallet.getByLabel('New wallet currency').fill('USD');
    await wallet.getByRole('button', { name: 'Add wallet' }).click();
    await page.getByRole('region', { name: 'Wallets' }).getByText('USD', { exact: true }).waitFor();
    expect((await svc.database.db.any('SELECT currency FROM wallets ORDER BY currency')).map((w) => w.currency)).toEqual(['UGX', 'USD']);

    // A MID whose processor password is write-only, then re-ranked.
    const password = 'processor-pass-4711';
    await sections.getByRole('link', { name: 'MIDs', exact: true }).click();
    const mid = page.getByRole('form', { name: 'Add a MID' });
    await mid.getByLabel('Business name at the processor').fill('Kampala Books Ltd');
    await mid.getByLabel('Currency').fill('UGX');
    await mid.getByLabel('Password at the processor').fill(password);
    await mid.getByRole('button', { name: 'Add MID' }).click();
    const mids = page.getByRole('region', { name: 'MIDs (routing terminals)' });
    await mids.getByRole('cell', { name: 'stored' }).waitFor();
    expect(await page.content()).not.toContain(password);
    const midRow = await svc.database.db.one('SELECT id, merchant_password_enc FROM mids');
    expect(midRow.merchant_password_enc).not.toContain(password);
    await mids.getByRole('button', { name: `Edit MID #${midRow.id}` }).click();
    const edit = page.getByRole('form', { name: `Edit MID #${midRow.id}` });
    await edit.getByLabel('Processing rank').fill('2');
    await edit.getByLabel('Disburses (pays out to phones or bank accounts)').check();
    await edit.getByRole('button', { name: 'Save MID' }).click();
    await edit.getByText(`MID #${midRow.id} saved.`).waitFor();
    expect(await svc.database.db.one('SELECT processing_rank, collects, disburses FROM mids')).toEqual({ processing_rank: 2, collects: true, disburses: true });
    await mids.getByRole('cell', { name: 'collections and disbursements' }).waitFor();
    // a MID for nothing is refused with the API's words, and nothing changes
    await edit.getByLabel('Collects (takes payments)').uncheck();
    await edit.getByLabel('Disburses (pays out to phones or bank accounts)').uncheck();
    await edit.getByRole('button', { name: 'Save MID' }).click();
    await edit.getByText('A MID collects, disburses or both').waitFor();
    expect(await svc.database.db.one('SELECT collects, disburses FROM mids')).toEqual({ collects: true, disburses: true });
    for (const method of ['BANK', 'CRYPTO']) {
      await svc.admin.post(`/v1/admin/businesses/${business.id}/mids`, { business_name: 'Kampala Books Ltd', service_type: 'sandbox', payment_method: method, currency: 'UGX' });
    }

    // A webhook hash under 16 characters: the API's words next to the field, no token written.
    await sections.getByRole('link', { name: 'API tokens', exact: true }).click();
    await createToken(page, 'too-short');
    const shortHash = await apiMessage('post', `/v1/admin/businesses/${business.id}/api-tokens`, { notification_email: 'a@b.example', webhook_url: 'https://a.example/h', webhook_hash: 'too-short' }, 'webhook_hash');
    await expectText(fieldError(page, 'New API token', 'webhook_hash'), shortHash);
    expect(await count('api_tokens')).toBe(0);

    // The secret is shown once, works, and is never shown again.
    await createToken(page, 'whsec-kampala-books-0001');
    const secret = (await page.getByTestId('api-secret').textContent()) as string;
    const apiKey = (await svc.database.db.one('SELECT api_key FROM api_tokens')).api_key as string;
    const token = await svc.anon.post('/v1/auth/token', { api_key: apiKey }, { headers: { 'Secret-Key': secret } });
    expect(token.status).toBe(200);
    await page.getByRole('button', { name: 'I have stored the secret' }).click();
    await page.getByRole('article', { name: `API token ${apiKey}` }).getByLabel('secret hidden').waitFor();
    expect(await page.content()).not.toContain(secret);
    await page.reload();
    await page.getByRole('article', { name: `API token ${apiKey}` }).waitFor();
    expect(await page.content()).not.toContain(secret);

    // A second token is fine; a third is refused in the API's words and not written.
    await createToken(page, 'whsec-kampala-books-0002');
    await page.getByRole('button', { name: 'I have stored the secret' }).click();
    await createToken(page, 'whsec-kampala-books-0003');
    const limit = (await svc.admin.post(`/v1/admin/businesses/${business.id}/api-tokens`, { notification_email: 'a@b.example', webhook_url: 'https://a.example/h', webhook_hash: 'whsec-kampala-books-0003' })).body.message;
    await page.getByRole('form', { name: 'New API token' }).getByRole('alert').getByText(limit).waitFor();
    expect(await count('api_tokens')).toBe(2);

    // Go-live: the merchant's sandbox runs appear in the review, then the operator verifies.
    const merchant = svc.merchant(token.body.data.token);
    for (const method of ['BANK', 'CRYPTO']) {
      const r = await merchant.post('/v1/collections/request-to-pay', {
        currency: 'UGX', amount: 500, payment_method: method, account_number: 'acct-123', redirect_url: 'https://shop.example/done', merchant_reference: `CERT-${method}`, narration: 'Certification run',
      });
      expect(r.status).toBe(200);
      expect((await merchant.post(`/v1/sandbox/collections/${r.body.data.gateway_reference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
    }
    await sections.getByRole('link', { name: 'Go-live review', exact: true }).click();
    expect(page.url()).toBe(`${svc.url}/dashboard/businesses/${business.id}/go-live`);
    await page.reload();
    const review = page.getByRole('region', { name: 'Go-live review' });
    await review.getByRole('listitem').filter({ hasText: 'BANK' }).getByText('passed').waitFor();
    await review.getByRole('listitem').filter({ hasText: 'CRYPTO' }).getByText('passed').waitFor();
    await review.getByRole('listitem').filter({ hasText: 'MOBILE_MONEY_SUCCESS' }).getByText('not yet').waitFor();
    await review.getByText(`recorded in your name, ${operator.email}`).waitFor();
    await review.getByLabel('What was reviewed').fill('Sandbox runs and KYC file 2211');
    await review.getByRole('button', { name: 'Verify for live' }).click();
    await review.getByText(`Verified by ${operator.email}`).waitFor();
    await page.getByText('verified for live').waitFor();
    const verified = await svc.database.db.one('SELECT verified_by, verified_at FROM businesses WHERE id = $1', [business.id]);
    expect(verified.verified_by).toBe(operator.email);
    expect(verified.verified_at).not.toBeNull();
    await page.context().close();
  }, 180_000);
});

async function expectText(locator: ReturnType<Page['locator']>, text: string): Promise<void> {
  await locator.waitFor();
  expect(await locator.textContent()).toContain(text);
}
