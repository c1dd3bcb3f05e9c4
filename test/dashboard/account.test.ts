// Proves, in Chromium against a real service and database, a person's own account: changing the password needs the current one (a wrong one is refused in the API's words), ends the person's other sessions and keeps this one; and replacing the authenticator asks for the password and a current code, shows the new secret as a QR code of its otpauth:// URL, and gives new recovery codes once; the page says how many recovery codes are left.
import QRCode from 'qrcode';
import type { Browser } from 'playwright-core';
import { QR_OPTIONS } from '../../dashboard/src/ui/qr-options';
import { launchBrowser } from '../helpers/browser';
import { dashboardPage, describeBrowser, fieldError, signIn } from '../helpers/dashboard';
import { createBusiness } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, SessionClient, signedIn, totpCode } from '../helpers/users';
import { currentCode } from '../../src/people/totp';

const clock = new Clock();
let svc: TestService;
let browser: Browser;
/** A fresh database, a service and Chromium take a while on a loaded machine. */
const SETUP_MS = 180_000;
const NEW_PASSWORD = 'a brand new passphrase 42';

beforeAll(async () => {
  svc = await startTestService({ now: clock.now });
  browser = (await launchBrowser()) as Browser;
}, SETUP_MS);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describeBrowser('your own account in Chromium', () => {
  it('changes the password with the current one, ending the other sessions and keeping this one', async () => {
    const business = (await createBusiness(svc, { name: 'Account Shop' })).id;
    const owner = await createUser(svc, { role: 'merchant_owner', business_id: business });
    const elsewhere = await signedIn(svc, owner);
    const page = await dashboardPage(browser, svc);
    await signIn(page, owner.email, owner.password);
    // signing in lands on the Overview, marked in the menu as the page shown
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).getAttribute('aria-current')).toBe('page');
    await page.getByRole('link', { name: owner.email }).click();
    // when the session ends, in words that do not call the idle expiry "now"
    const ends = (await page.locator('dt:has-text("Session ends") + dd').textContent()) ?? '';
    expect(ends).toMatch(/^at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+ if you do nothing until then \(each page you open moves that 30 minutes on\), and at the latest at \d{4}-/);
    expect(ends).not.toContain('now');
    const form = page.getByRole('form', { name: 'Change password' });
    await form.getByLabel('Current password').fill('not my password');
    await form.getByLabel('New password').fill(NEW_PASSWORD);
    await form.getByRole('button', { name: 'Change password' }).click();
    await fieldError(page, 'Change password', 'current_password').getByText('is not your current password').waitFor();
    expect((await elsewhere.get('/v1/admin/session')).status).toBe(200);

    await form.getByLabel('Current password').fill(owner.password);
    await form.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed.').waitFor();
    expect((await elsewhere.get('/v1/admin/session')).status).toBe(401);
    // this session goes on, with its new CSRF token: a change still works
    await page.getByRole('link', { name: 'Team' }).click();
    const invite = page.getByRole('form', { name: 'Invite someone' });
    await invite.getByLabel('Email').fill('after.change@people.example');
    await invite.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText('Invitation sent to after.change@people.example').waitFor();
    expect((await new SessionClient(svc).login(owner.email, NEW_PASSWORD)).status).toBe(200);
    await page.context().close();
  });

  it('replaces the authenticator: password and current code first, a QR code of the new secret, new recovery codes shown once', async () => {
    const op = await createUser(svc, { role: 'operator_admin', totp: true });
    const page = await dashboardPage(browser, svc);
    clock.advance(30_000);
    await signIn(page, op.email, op.password, totpCode(svc));
    await page.getByRole('link', { name: op.email }).click();
    await page.getByRole('button', { name: 'Replace authenticator' }).click();
    const you = page.getByRole('form', { name: 'Confirm it is you' });
    clock.advance(30_000);
    await you.getByLabel('Your password').fill('wrong password here');
    await you.getByLabel('Code from your current authenticator').fill(totpCode(svc));
    await you.getByRole('button', { name: 'Show my new secret' }).click();
    await fieldError(page, 'Confirm it is you', 'current_password').getByText('is not your current password').waitFor();
    await you.getByLabel('Your password').fill(op.password);
    await you.getByRole('button', { name: 'Show my new secret' }).click();

    const qr = page.getByRole('img', { name: /QR code of your two-factor secret/ });
    await qr.waitFor();
    const otpauth = (await page.getByRole('link', { name: 'Add to authenticator app' }).getAttribute('href')) ?? '';
    expect(otpauth).toMatch(/^otpauth:\/\/totp\/PayCollect:/);
    const expected = `data:image/svg+xml;utf8,${encodeURIComponent(await QRCode.toString(otpauth, QR_OPTIONS))}`;
    expect(await qr.getAttribute('src')).toBe(expected);

    const secret = (await page.getByTestId('totp-secret').textContent()) ?? '';
    expect(otpauth).toContain(`secret=${secret}`);
    clock.advance(30_000);
    await page.getByLabel('Code from the app').fill(currentCode(secret, clock.now()));
    await page.getByRole('button', { name: 'Confirm' }).click();
    const codes = page.getByRole('region', { name: 'Recovery codes' });
    await codes.getByText('shown only this once').waitFor();
    expect(await codes.locator('li code').count()).toBe(10);
    await codes.getByRole('button', { name: 'I have stored the codes' }).click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await page.getByText('On: you sign in with a code from your authenticator app.').waitFor();
    await page.getByText('You have 10 recovery codes left, each good for one sign-in without your phone.').waitFor();

    // the old authenticator no longer signs in, the new one does
    clock.advance(30_000);
    const next = new SessionClient(svc);
    await next.login(op.email, op.password);
    expect((await next.post('/v1/admin/session/totp', { code: totpCode(svc) })).status).toBe(401);
    clock.advance(30_000);
    expect((await next.post('/v1/admin/session/totp', { code: currentCode(secret, clock.now()) })).status).toBe(200);

    // the count follows the codes used: few left asks for new ones, none left says what is at stake
    await svc.services.db.none(
      'UPDATE totp_recovery_codes SET used_at = now() WHERE code_hash IN (SELECT code_hash FROM totp_recovery_codes WHERE user_id = $1 LIMIT 8)',
      [op.id],
    );
    await page.reload();
    await page.getByText('You have 2 recovery codes left, each good for one sign-in without your phone. Replace the authenticator soon to get new ones.').waitFor();
    await svc.services.db.none('UPDATE totp_recovery_codes SET used_at = now() WHERE user_id = $1', [op.id]);
    await page.reload();
    await page.getByText('You have no recovery codes left: replace the authenticator now').waitFor();
    await page.context().close();
  });
});
