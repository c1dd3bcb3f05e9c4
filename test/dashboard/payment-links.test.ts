// Proves, in Chromium against a real service and database, the merchant's Payment links page at a phone's
// 390 px: an owner finds the business's only API token already chosen, sees the API's refusals at their fields
// (a minimum above the maximum; a redirect URL and a confirmation message both; nothing written), creates a
// link with a description and sees it listed with its URL and its QR code; a customer with no session opens
// the URL, reads the description, picks mobile money, enters a phone number and pays in the sandbox until the
// page says it completed; the list then counts 1 completed; Deactivate asks first, with the message, and the
// URL then answers the 410 page with it; Reactivate opens it again. An owner of a business with no API token
// is sent to create one first.
import type { Browser, Locator } from 'playwright-core';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, fieldError, fitsWidth, PHONE, signIn } from '../helpers/dashboard';
import { eventually, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { createBusiness } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { createUser } from '../helpers/users';

let svc: TestService;
let browser: Browser;
let shop: MerchantSetup;

beforeAll(async () => {
  // the sandbox completes a mobile money payment a moment after it is asked for
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '50' } });
  shop = await setupMerchant(svc, { name: 'Kampala Tailors' });
  browser = (await launchBrowser()) as Browser;
}, 180_000);
afterAll(() => closeAll(browser, svc));

/** The value beside a term of a link's card. */
const pair = (card: Locator, term: string) => card.locator('dt', { hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd[1]');

const links = async () => svc.database.db.any('SELECT link_id, api_token_id, state FROM payment_links WHERE business_id = $1', [shop.businessId]);

describeBrowser('payment links in the merchant portal', () => {
  it('lets an owner create a link at phone width that a customer pays, deactivate it after a confirmation, then reactivate it', async () => {
    const owner = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId });
    const page = await dashboardPage(browser, svc, '/payment-links', PHONE);
    await signIn(page, owner.email, owner.password);
    await page.getByRole('heading', { name: 'Payment links', level: 1 }).waitFor();
    await page.getByText('No payment link yet.').waitFor();
    const form = page.getByRole('form', { name: 'New payment link' });
    expect(await form.getByLabel('API token').inputValue()).toBe(String(shop.apiTokenId));

    // the API's refusal shows at the field it names, and nothing is written
    await form.getByLabel('Title').fill('Tailoring deposit');
    await form.getByLabel('The customer chooses, between a minimum and a maximum').check();
    await form.getByLabel('Minimum amount').fill('30000');
    await form.getByLabel('Maximum amount').fill('20000');
    await form.getByLabel('Redirect URL, optional').fill('https://shop.example.org/thanks');
    await form.getByLabel('Confirmation message, optional').fill('Thank you, we start sewing today');
    await form.getByRole('button', { name: 'Create payment link' }).click();
    expect(await fieldError(page, 'New payment link', 'min_amount').textContent()).toContain('must not be above max_amount');
    expect(await fieldError(page, 'New payment link', 'confirmation_message').textContent()).toContain('not both');
    expect(await links()).toEqual([]);
    await form.getByLabel('Redirect URL, optional').fill('');
    await form.getByLabel('Description, optional').fill('Half now, half on delivery');

    await form.getByLabel('A fixed amount').check();
    await form.getByLabel('Amount', { exact: true }).fill('25000');
    expect(await form.getByRole('checkbox', { name: 'Mobile money' }).isChecked()).toBe(true);
    await form.getByRole('button', { name: 'Create payment link' }).click();
    await form.getByText(/^Payment link “Tailoring deposit” created/).waitFor();
    const [made] = await links();
    expect(made).toMatchObject({ api_token_id: shop.apiTokenId, state: 'active' });

    const card = page.getByRole('article', { name: 'Payment link Tailoring deposit' });
    const url = await card.getByLabel('URL of Tailoring deposit').inputValue();
    expect(url).toBe(`${svc.config.publicBaseUrl}/l/${made.link_id}`);
    expect(await pair(card, 'Amount').textContent()).toBe('25,000 UGX');
    expect(await pair(card, 'State').textContent()).toBe('active');
    expect(await pair(card, 'Completed').textContent()).toBe('0');
    // the QR code is the link's own image, loaded
    expect(await card.getByRole('img', { name: `QR code of ${url}` }).getAttribute('src')).toBe(`/l/${made.link_id}/qr.svg`);
    await page.waitForFunction(() => {
      const img = document.querySelector('img.link-qr') as HTMLImageElement | null;
      return img !== null && img.complete && img.naturalWidth > 0;
    });
    expect(await fitsWidth(page)).toBe(true);

    // a customer, without any session, pays it by mobile money in the sandbox
    const customer = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    customer.setDefaultTimeout(60_000);
    const pay = await customer.newPage();
    await pay.goto(url);
    await pay.getByRole('heading', { name: 'Tailoring deposit' }).waitFor();
    await pay.getByText('Half now, half on delivery').waitFor();
    await pay.getByRole('radio', { name: 'Mobile money' }).check();
    await pay.getByLabel('Phone number for mobile money (country code first)').fill('256777000001');
    await pay.getByRole('button', { name: 'Pay' }).click();
    await pay.waitForURL(/\/pay\//);
    await eventually(
      async () => {
        await pay.reload();
        return (await pay.getByRole('heading', { name: 'Payment completed' }).count()) > 0 || undefined;
      },
      30_000,
      'the payment page to say it completed',
    );
    await pay.getByRole('link', { name: 'Return to the merchant' }).click();
    await pay.getByText('Thank you, we start sewing today').waitFor();

    // back in the dashboard, the list counts it
    await page.reload();
    await card.waitFor();
    expect(await pair(card, 'Completed').textContent()).toBe('1');
    expect(await pair(card, 'Attempts').textContent()).toBe('1');
    expect(await pair(card, 'Collected').textContent()).toBe('25,000 UGX');

    // Deactivate asks first; Cancel changes nothing
    await card.getByRole('button', { name: 'Deactivate' }).click();
    const confirm = page.getByRole('form', { name: 'Deactivate Tailoring deposit' });
    expect(await confirm.textContent()).toContain('Deactivate this link?');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect((await links())[0].state).toBe('active');
    await card.getByRole('button', { name: 'Deactivate' }).click();
    await confirm.getByLabel('Message to customers').fill('Closed for the holidays');
    await confirm.getByRole('button', { name: 'Confirm deactivation' }).click();
    await pair(card, 'State').getByText('deactivated').waitFor();
    expect(await card.getByRole('button', { name: 'Deactivate' }).count()).toBe(0);
    expect((await links())[0].state).toBe('deactivated');

    const gone = await pay.goto(url);
    expect(gone?.status()).toBe(410);
    await pay.getByText('Closed for the holidays').waitFor();

    // Reactivate: the link takes payments again, its page is the form once more
    await card.getByRole('button', { name: 'Reactivate' }).click();
    await pair(card, 'State').getByText('active', { exact: true }).waitFor();
    expect(await card.getByRole('button', { name: 'Reactivate' }).count()).toBe(0);
    expect((await links())[0].state).toBe('active');
    const back = await pay.goto(url);
    expect(back?.status()).toBe(200);
    await pay.getByRole('button', { name: 'Pay' }).waitFor();
    await customer.close();
    await page.context().close();
  }, 240_000);

  it('sends an owner of a business without an API token to create one first', async () => {
    const bare = await createBusiness(svc, { name: 'No Token Yet' });
    const owner = await createUser(svc, { role: 'merchant_owner', business_id: bare.id });
    const page = await dashboardPage(browser, svc, '/payment-links', PHONE);
    await signIn(page, owner.email, owner.password);
    await page.getByRole('heading', { name: 'Payment links', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Create an API token first' }).click();
    await page.getByRole('heading', { name: 'API tokens and webhooks', level: 1 }).waitFor();
    await page.context().close();
  }, 120_000);
});
