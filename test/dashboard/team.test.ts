// Proves, in Chromium against a real service and database, a merchant's team: the owner invites a developer from
// the Team page, the emailed link opens the dashboard's invitation page, the new developer signs in and manages API
// tokens but sees no team or audit pages; and a forgotten password is reset through the emailed link.
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser';
import { dashboardPage, describeBrowser, signIn } from '../helpers/dashboard';
import { setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { createUser, tokenFromOutbox } from '../helpers/users';

/** A fresh database, a service and Chromium take a while on a loaded machine. */
const SETUP_MS = 180_000;
const NEW_PASSWORD = 'a brand new passphrase 42';
let svc: TestService;
let browser: Browser;
let shop: MerchantSetup;

beforeAll(async () => {
  svc = await startTestService();
  shop = await setupMerchant(svc, { mids: [{ payment_method: 'MOBILE_MONEY', currency: 'UGX' }] });
  browser = (await launchBrowser()) as Browser;
}, SETUP_MS);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describeBrowser('a merchant team in Chromium', () => {
  it('invites a developer (roles read as words: Owner, Developer, Viewer) who accepts by the emailed link (its page says the business, role and email address it is for; used, it offers no form) and can manage tokens, not the team', async () => {
    const owner = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId });
    const page = await dashboardPage(browser, svc);
    await signIn(page, owner.email, owner.password);
    await page.getByRole('link', { name: 'Team' }).click();
    const invite = page.getByRole('form', { name: 'Invite someone' });
    await invite.getByLabel('Email').fill('dev@kampalabooks.example');
    // roles in words, not the API's names
    expect(await invite.getByLabel('Role').locator('option').allTextContents()).toEqual(['Owner', 'Developer', 'Viewer']);
    expect(await page.getByLabel(`Role of ${owner.email}`).locator('option:checked').textContent()).toBe('Owner');
    await invite.getByLabel('Role').selectOption({ label: 'Developer' });
    await invite.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText('Invitation sent to dev@kampalabooks.example').waitFor();
    await page.getByText('dev@kampalabooks.example as Developer').waitFor();

    // The owner's browser opens the emailed link while still signed in: the page says whose session is open,
    // and signing out there opens the invitation.
    const token = await tokenFromOutbox(svc, 'dev@kampalabooks.example', 'accept-invitation');
    await page.goto(`${svc.url}/dashboard/accept-invitation?token=${token}`);
    await page.getByRole('heading', { name: 'You are signed in' }).waitFor();
    expect(await page.getByText(`signed in as ${owner.email}`).count()).toBe(1);
    await page.getByRole('button', { name: 'Sign out' }).click();
    // the page says what the invitation is for before a password is chosen: business, role, email address
    const business = await svc.database.db.one('SELECT name FROM businesses WHERE id = $1', [shop.businessId]);
    await page.getByTestId('invitation').waitFor();
    expect(await page.getByTestId('invitation').textContent()).toMatch(
      new RegExp(`^You are invited to ${business.name} as Developer, with the email address dev@kampalabooks\\.example, by ${owner.email.replace(/[.+]/g, '\\$&')}\\. You sign in with that address\\. The link works until `),
    );
    const accept = page.getByRole('form', { name: 'Accept invitation' });
    await accept.getByLabel('Your name').fill('Dev Eloper');
    await accept.getByLabel('Choose a password').fill('short');
    await accept.getByRole('button', { name: 'Create my account' }).click();
    await accept.locator('.field-error[data-field="password"]').waitFor();
    await accept.getByLabel('Choose a password').fill(NEW_PASSWORD);
    await accept.getByRole('button', { name: 'Create my account' }).click();
    await page.getByText('Your account dev@kampalabooks.example is ready.').waitFor();
    const user = await svc.database.db.one('SELECT role, business_id FROM users WHERE email = $1', ['dev@kampalabooks.example']);
    expect(user).toEqual({ role: 'merchant_developer', business_id: shop.businessId });

    // the link again, used: the API's refusal, and no form
    await page.goto(`${svc.url}/dashboard/accept-invitation?token=${token}`);
    await page.getByRole('alert').getByText('This invitation is unknown, withdrawn, used or expired; ask for a new one.').waitFor();
    expect(await page.getByRole('form', { name: 'Accept invitation' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Go to sign-in' }).click();
    await signIn(page, 'dev@kampalabooks.example', NEW_PASSWORD);
    expect(await page.locator('header .tag').textContent()).toBe('Developer');
    await page.getByRole('link', { name: 'API tokens and webhooks' }).click();
    await page.getByRole('button', { name: 'Create token' }).waitFor();
    expect(await page.getByRole('button', { name: 'Create token' }).isDisabled()).toBe(false);
    expect(await page.getByRole('link', { name: 'Team' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
    await page.context().close();
  }, SETUP_MS);

  it('resets a forgotten password through the emailed link', async () => {
    const viewer = await createUser(svc, { role: 'merchant_viewer', business_id: shop.businessId });
    const page = await dashboardPage(browser, svc);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('Email').fill(viewer.email);
    await page.getByRole('button', { name: 'Email me a link' }).click();
    await page.getByText('a link to choose a new password is on its way').waitFor();
    const token = await tokenFromOutbox(svc, viewer.email, 'reset-password');
    await page.goto(`${svc.url}/dashboard/reset-password?token=${token}`);
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed').waitFor();
    await page.getByRole('link', { name: 'Sign in' }).click();
    await signIn(page, viewer.email, viewer.password);
    await page.getByRole('form', { name: 'Sign in' }).getByRole('alert').waitFor();
    await signIn(page, viewer.email, NEW_PASSWORD);
    // a merchant's sign-in lands on the overview
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.context().close();
  }, SETUP_MS);
});
