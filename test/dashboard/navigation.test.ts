// Proves, in Chromium against a real service and database: on a 390 x 844 phone the header keeps to
// an eighth of the screen, its navigation folded behind a "Menu" disclosure (aria-expanded, aria-controls) that
// the keyboard opens, whose links lead to every page, and that closes when a page is chosen or on Escape; on a
// desktop the navigation stays in the header with no Menu button.
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, fitsWidth, PHONE, signIn } from '../helpers/dashboard';
import { setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { createUser } from '../helpers/users';
import type { TestUser } from '../helpers/users';

let svc: TestService;
let browser: Browser;
let shop: MerchantSetup;
let owner: TestUser;
const PAGES = ['Overview', 'Payments', 'Payment links', 'Refunds', 'Disputes', 'Disbursements', 'Balances', 'Statement', 'API tokens and webhooks', 'Webhook deliveries', 'Go live', 'Team', 'Audit log'];

beforeAll(async () => {
  svc = await startTestService();
  shop = await setupMerchant(svc, { name: 'Kampala Books', mids: [{ payment_method: 'MOBILE_MONEY', currency: 'UGX' }] });
  owner = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId });
  browser = (await launchBrowser()) as Browser;
}, 180_000);
afterAll(() => closeAll(browser, svc));

async function signedIn(viewport?: typeof PHONE): Promise<Page> {
  const page = await dashboardPage(browser, svc, '/payments', viewport);
  await signIn(page, owner.email, owner.password);
  await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
  return page;
}

const headerHeight = async (page: Page) => (await page.locator('header.top').boundingBox())?.height ?? Infinity;
const focusedText = (page: Page) => page.evaluate(() => document.activeElement?.textContent ?? null);

describeBrowser('the header on a phone and on a desktop', () => {
  it('folds the navigation behind a Menu button on a phone, the header an eighth of the screen at most', async () => {
    const page = await signedIn(PHONE);
    expect(await headerHeight(page)).toBeLessThanOrEqual(PHONE.height / 8);
    const toggle = page.getByRole('button', { name: 'Menu' });
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    const controls = (await toggle.getAttribute('aria-controls')) as string;
    expect(await page.locator(`#${controls}`).count()).toBe(1);
    expect(await nav.isVisible()).toBe(false);

    // by keyboard: the button opens the menu, the first link is next in the tab order, Enter follows it
    await toggle.focus();
    await page.keyboard.press('Enter');
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await nav.waitFor();
    expect(await nav.getByRole('link').allTextContents()).toEqual(PAGES);
    expect(await page.locator(`#${controls}`).getByRole('link', { name: owner.email }).isVisible()).toBe(true);
    expect(await page.locator(`#${controls}`).getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
    expect(await fitsWidth(page)).toBe(true);
    // the open menu lies over the page: the header itself does not grow
    expect(await headerHeight(page)).toBeLessThanOrEqual(PHONE.height / 8);
    await page.keyboard.press('Tab');
    expect(await focusedText(page)).toBe('Overview');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/overview');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await nav.isVisible()).toBe(false);

    // a link chosen by touch: the page opens and the menu closes
    await toggle.click();
    await nav.getByRole('link', { name: 'Balances' }).click();
    await page.getByRole('heading', { name: 'Balances', level: 1 }).waitFor();
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await nav.isVisible()).toBe(false);

    // Escape closes it and gives the focus back to the button
    await toggle.click();
    await nav.getByRole('link', { name: 'Go live' }).focus();
    await page.keyboard.press('Escape');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await nav.isVisible()).toBe(false);
    expect(await focusedText(page)).toBe('Menu');
    await page.context().close();
  }, 120_000);

  it('keeps the navigation in the header on a desktop, without a Menu button', async () => {
    const page = await signedIn();
    expect(await page.getByRole('button', { name: 'Menu' }).isVisible()).toBe(false);
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.isVisible()).toBe(true);
    expect(await nav.getByRole('link').allTextContents()).toEqual(PAGES);
    for (const link of await nav.getByRole('link').all()) expect(await link.isVisible()).toBe(true);
    await nav.getByRole('link', { name: 'Balances' }).click();
    await page.getByRole('heading', { name: 'Balances', level: 1 }).waitFor();
    expect(await page.getByRole('link', { name: owner.email }).isVisible()).toBe(true);
    await page.context().close();
  }, 120_000);
});
