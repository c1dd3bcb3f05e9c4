// Proves, in Chromium against a real service and database, that the dashboard leaves nobody at a dead end: an unknown disbursement or payment says so with a link back to its list (which opens it) and offers no "Try again" that cannot find it; an unknown business the same for an operator; and the site answers /favicon.ico with an icon rather than a 404.
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, signIn } from '../helpers/dashboard';
import { setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, totpCode } from '../helpers/users';

const clock = new Clock();
let svc: TestService;
let browser: Browser;
let shop: MerchantSetup;

beforeAll(async () => {
  svc = await startTestService({ now: clock.now });
  shop = await setupMerchant(svc);
  browser = (await launchBrowser()) as Browser;
}, 180_000);
afterAll(() => closeAll(browser, svc));

describeBrowser('no dead ends', () => {
  it("links an unknown disbursement or payment back to its list, with no Try again", async () => {
    const owner = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId });
    const page = await dashboardPage(browser, svc, '/disbursements/DBNOSUCHTHING0000000000');
    await signIn(page, owner.email, owner.password);
    const alert = page.getByRole('alert');
    await alert.getByText(/Check the address, or go back to the disbursements\.$/).waitFor();
    expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
    await alert.getByRole('link', { name: 'the disbursements' }).click();
    await page.getByRole('heading', { name: 'Disbursements', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/disbursements');

    await page.goto(`${svc.url}/dashboard/payments/PCNOSUCHTHING0000000000`);
    await page.getByRole('alert').getByText(/Check the address, or go back to the payments\.$/).waitFor();
    expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
    await page.getByRole('alert').getByRole('link', { name: 'the payments' }).click();
    await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
    await page.context().close();
  }, 120_000);

  it('links an unknown business back to the businesses for an operator', async () => {
    const operator = await createUser(svc, { role: 'operator_admin', totp: true });
    const page = await dashboardPage(browser, svc, '/businesses/999999');
    clock.advance(30_000);
    await signIn(page, operator.email, operator.password, totpCode(svc));
    await page.getByRole('alert').getByText(/Check the address, or go back to the businesses\.$/).waitFor();
    expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
    await page.context().close();
  }, 120_000);

  it('answers /favicon.ico with an icon', async () => {
    const page = await dashboardPage(browser, svc, '/');
    const icon = await page.request.get(`${svc.url}/favicon.ico`);
    expect(icon.status()).toBe(200);
    expect(icon.headers()['content-type']).toMatch(/^image\/svg\+xml/);
    expect(await icon.text()).toMatch(/^<svg /);
    await page.context().close();
  }, 60_000);
});
