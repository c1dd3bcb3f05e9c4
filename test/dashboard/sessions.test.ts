// Proves, in Chromium against a real service and database, the people side of the dashboard: an operator's
// first sign-in enrols two-factor authentication (recovery codes shown once) and the next one needs a code; an
// idle session ends and the page says so; a change with a wrong CSRF token is refused and changes nothing;
// support can read but not change (forms disabled, direct calls 403); and go-live from the merchant's request
// to the operator's verification.
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser';
import { dashboardPage, describeBrowser, signIn } from '../helpers/dashboard';
import { mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, SessionClient, totpCode } from '../helpers/users';

const clock = new Clock();
const IDLE_MS = 30 * 60_000;
/** A fresh database, a service and Chromium take a while on a loaded machine. */
const SETUP_MS = 180_000;
let svc: TestService;
let browser: Browser;
let shop: MerchantSetup;

beforeAll(async () => {
  svc = await startTestService({ now: clock.now });
  shop = await setupMerchant(svc, { mids: [{ payment_method: 'MOBILE_MONEY', currency: 'UGX' }, { payment_method: 'BANK', currency: 'UGX' }] });
  browser = (await launchBrowser()) as Browser;
}, SETUP_MS);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

const rows = (sql: string, values: unknown[] = []) => svc.database.db.any(sql, values);

/** A signed-in operator page; every TOTP code works once, so the clock moves to a fresh 30-second step. */
async function operatorPage(role: 'operator_admin' | 'operator_support', path = '/'): Promise<Page> {
  const user = await createUser(svc, { role, totp: true });
  clock.advance(30_000);
  const page = await dashboardPage(browser, svc, path);
  await signIn(page, user.email, user.password, totpCode(svc));
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return page;
}

describeBrowser('dashboard people in Chromium', () => {
  it('enrols an operator in two-factor authentication on first sign-in, then asks for a code', async () => {
    const admin = await createUser(svc, { role: 'operator_admin' });
    const page = await dashboardPage(browser, svc);
    await signIn(page, admin.email, admin.password);
    await page.getByRole('heading', { name: 'Set up two-factor authentication' }).waitFor();
    await page.getByRole('button', { name: 'Show my secret' }).click();
    const secret = (await page.getByTestId('totp-secret').textContent()) as string;
    await page.getByLabel('Code from the app').fill(totpCode(svc, secret));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('region', { name: 'Recovery codes' }).waitFor();
    const codes = await page.getByRole('region', { name: 'Recovery codes' }).getByRole('listitem').allTextContents();
    expect(codes.length).toBeGreaterThanOrEqual(8);
    await page.getByRole('button', { name: 'I have stored the codes' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(await page.content()).not.toContain(codes[0]);
    expect((await rows('SELECT totp_enabled_at FROM users WHERE id = $1', [admin.id]))[0].totp_enabled_at).not.toBeNull();

    // Signed out, the password alone is not enough: a wrong code is refused, a current one lets in.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, admin.email, admin.password);
    await page.getByLabel('Authenticator code').fill('000000' === totpCode(svc, secret) ? '111111' : '000000');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('form', { name: 'Second factor' }).getByRole('alert').waitFor();
    clock.advance(30_000);
    await page.getByLabel('Authenticator code').fill(totpCode(svc, secret));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.context().close();
  }, SETUP_MS);

  it('ends an idle session and says so on the sign-in page', async () => {
    const page = await operatorPage('operator_admin');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    clock.advance(IDLE_MS + 60_000);
    await page.getByRole('link', { name: 'Market rates' }).click();
    await page.getByRole('form', { name: 'Sign in' }).waitFor();
    await page.getByText('Your session has ended').waitFor();
    await page.context().close();
  }, SETUP_MS);

  it('refuses a change sent with a wrong CSRF token and changes nothing', async () => {
    const page = await operatorPage('operator_admin', '/rates');
    await page.route('**/v1/admin/fx-rates', (route) => route.continue({ headers: { ...route.request().headers(), 'x-csrf-token': 'forged-token' } }));
    const form = page.getByRole('form', { name: 'Set a market rate' });
    await form.getByLabel('Base').fill('GBP');
    await form.getByLabel('Quote').fill('UGX');
    await form.getByLabel('Rate').fill('4700');
    await form.getByRole('button', { name: 'Set rate' }).click();
    // the API's refusal and what to do, each a sentence with its full stop
    await form.getByRole('alert').getByText(
      'X-CSRF-Token is missing or does not match the session; read it again from GET /v1/admin/session. Your page has been brought up to date: try again.',
      { exact: true },
    ).waitFor();
    expect(await rows("SELECT * FROM fx_rates WHERE base = 'GBP'")).toEqual([]);
    // Without the forgery, the same form goes through: the page fetched the current token meanwhile.
    await page.unroute('**/v1/admin/fx-rates');
    await form.getByRole('button', { name: 'Set rate' }).click();
    await page.getByRole('cell', { name: 'GBP → UGX' }).waitFor();
    expect(await rows("SELECT rate::text FROM fx_rates WHERE base = 'GBP'")).toEqual([{ rate: expect.stringMatching(/^4700(\.0+)?$/) }]);
    await page.context().close();
  }, SETUP_MS);

  it('shows an answer that is not the API\'s (a proxy\'s 502) as one sentence with its full stop, and changes nothing', async () => {
    const page = await operatorPage('operator_admin', '/rates');
    await page.route('**/v1/admin/fx-rates', (route) =>
      route.request().method() !== 'GET' ? route.fulfill({ status: 502, contentType: 'text/html', body: '<h1>502 Bad Gateway</h1>' }) : route.continue(),
    );
    const form = page.getByRole('form', { name: 'Set a market rate' });
    await form.getByLabel('Base').fill('CHF');
    await form.getByLabel('Quote').fill('UGX');
    await form.getByLabel('Rate').fill('4100');
    await form.getByRole('button', { name: 'Set rate' }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('PayCollect answered HTTP 502. Try again; if it persists, check the service log.');
    expect(await rows("SELECT * FROM fx_rates WHERE base = 'CHF'")).toEqual([]);
    await page.context().close();
  }, SETUP_MS);

  it('refuses a sign-in after 10 failures in a minute, saying how long to wait, and signs no one in', async () => {
    const admin = await createUser(svc, { role: 'operator_admin', totp: true });
    clock.advance(60_000 - (clock.now().getTime() % 60_000) + 100); // start of a fresh window
    for (let i = 0; i < 10; i++) expect((await new SessionClient(svc).login(admin.email, 'wrong password here')).status).toBe(401);
    const page = await dashboardPage(browser, svc);
    await signIn(page, admin.email, admin.password);
    const alert = page.getByRole('form', { name: 'Sign in' }).getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/^Too many attempts; wait before trying again\. Wait \d+ seconds, then try again\.$/);
    expect(await page.getByRole('form', { name: 'Second factor' }).count()).toBe(0);
    expect(await rows('SELECT * FROM user_sessions WHERE user_id = $1', [admin.id])).toEqual([]);
    await page.context().close();
    clock.advance(60_000); // the next window: the address's sign-ins are counted afresh for the tests after
  }, SETUP_MS);

  it('lets support read a business but change nothing, in the page or by a direct call', async () => {
    const before = await rows('SELECT * FROM businesses ORDER BY id');
    const page = await operatorPage('operator_support', `/businesses/${shop.businessId}`);
    await page.getByRole('heading', { name: new RegExp(`#${shop.businessId}`) }).waitFor();
    expect(await page.getByRole('link', { name: 'New business' }).count()).toBe(0);
    // each part of the business's page, by its own address
    const sections = page.getByRole('navigation', { name: 'Business sections' });
    for (const [section, button] of [['Terms and fees', 'Save terms'], ['Wallets', 'Add wallet'], ['MIDs', 'Add MID'], ['API tokens', 'Create token'], ['Go-live review', 'Verify for live']]) {
      await sections.getByRole('link', { name: section, exact: true }).click();
      expect(await page.getByRole('button', { name: button }).isDisabled()).toBe(true);
    }
    // The page's own session, CSRF token included, straight at the API: refused by role.
    const status = await page.evaluate(async (id) => {
      const session = await (await fetch('/v1/admin/session')).json();
      const res = await fetch(`/v1/admin/businesses/${id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.data.csrf_token },
        body: JSON.stringify({ name: 'Renamed by support' }),
      });
      return res.status;
    }, shop.businessId);
    expect(status).toBe(403);
    expect(await rows('SELECT * FROM businesses ORDER BY id')).toEqual(before);
    await page.context().close();
  }, SETUP_MS);

  it('takes a merchant from its go-live request to the operator verifying it', async () => {
    for (const [phone, outcome] of [['256777000001', 'COMPLETED'], ['256777000003', 'FAILED']]) {
      const r = await shop.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: phone }));
      await shop.client.post(`/v1/sandbox/collections/${r.body.data.gateway_reference}/simulate`, { outcome });
    }
    const owner = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId });
    const merchant = await dashboardPage(browser, svc);
    await signIn(merchant, owner.email, owner.password);
    await merchant.getByRole('link', { name: 'Go live' }).click();
    const cases = merchant.getByRole('region', { name: 'Sandbox test cases' });
    await cases.getByRole('listitem').filter({ hasText: 'MOBILE_MONEY_SUCCESS' }).getByText('passed').waitFor();
    // the page speaks to the merchant: what it has left to do, then what happens next
    await cases.getByText(/^You have \d+ test cases? left\. Run each in the sandbox/).waitFor();
    await merchant.getByLabel('Your note for the operator').fill('Launching Monday');
    await merchant.getByRole('button', { name: 'Ask to go live' }).click();
    await merchant.getByText(/^You asked to go live on .+ An operator now reviews your test cases/).waitFor();

    const operator = await operatorPage('operator_admin', '/go-live-requests');
    await operator.getByText('Launching Monday').waitFor();
    await operator.getByRole('link', { name: /Test Merchant/ }).click();
    const review = operator.getByRole('region', { name: 'Go-live review' });
    await review.getByRole('button', { name: 'Verify for live' }).click();
    await review.getByText(/^Verified by .+@/).waitFor();
    // the operator's own email, from the session: nobody typed a name
    const [{ verified_by: by }] = await rows('SELECT verified_by FROM businesses WHERE id = $1', [shop.businessId]);
    expect(by).toMatch(/^operator\.admin\.\d+@people\.example$/);
    await review.getByText(`Verified by ${by}`).waitFor();

    await merchant.reload();
    await merchant.getByText(`You are live: your business was verified by ${by} on`).waitFor();
    await operator.context().close();
    await merchant.context().close();
  }, SETUP_MS);
});
