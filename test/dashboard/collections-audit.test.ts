// Proves, in Chromium against a real service and database: an operator's collections list names each
// row's business and searches by business, gateway reference, merchant reference and customer number (a bad value
// shows its error at the field); a payment's page names the business and shows the narration and the customer's
// number, with the service's own ledger accounts for operators only; times show in the viewer's time zone with UTC
// on hover; the audit log reads as changes (roles in words), filters by action, person and dates, and its scroll region is reachable
// by keyboard; at phone width each payment and webhook delivery is a card with its amount, status and action on screen.
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, fieldError, fitsWidth, navTo, PHONE, signIn } from '../helpers/dashboard';
import { mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, totpCode } from '../helpers/users';
import type { TestUser } from '../helpers/users';

const clock = new Clock();
let svc: TestService;
let browser: Browser;
let books: MerchantSetup;
let tools: MerchantSetup;
let operator: TestUser;
let owner: TestUser;
const refs: Record<string, string> = {};
const MM_MID = { payment_method: 'MOBILE_MONEY', currency: 'UGX' };

async function pay(m: MerchantSetup, merchantReference: string, accountNumber: string, narration: string, complete: boolean): Promise<string> {
  const r = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ merchant_reference: merchantReference, account_number: accountNumber, narration }));
  expect(r.status).toBe(200);
  const reference = r.body.data.gateway_reference as string;
  if (complete) expect((await m.client.post(`/v1/sandbox/collections/${reference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
  return reference;
}

beforeAll(async () => {
  svc = await startTestService({ now: clock.now, env: { SANDBOX_MM_DELAY_MS: '3600000' } });
  // a webhook nobody answers: the completed payment's notification is listed as retrying
  books = await setupMerchant(svc, { name: 'Kampala Books', mids: [MM_MID], fees: [{ payment_method: 'MOBILE_MONEY', percent: 3, fixed: 0 }], webhookUrl: 'http://127.0.0.1:9/books' });
  tools = await setupMerchant(svc, { name: 'Nairobi Tools', mids: [MM_MID] });
  refs.books = await pay(books, 'ORD-BOOKS-0042', '256777000201', 'Order 0042 of books', true);
  refs.toolsSame = await pay(tools, 'ORD-TOOLS-0007', '256777000201', 'Order 0007 of tools', false);
  refs.toolsOther = await pay(tools, 'ORD-TOOLS-0008', '256777000202', 'Order 0008 of tools', false);
  operator = await createUser(svc, { role: 'operator_admin', totp: true });
  owner = await createUser(svc, { role: 'merchant_owner', business_id: books.businessId });
  browser = (await launchBrowser()) as Browser;
}, 180_000);
afterAll(() => closeAll(browser, svc));

async function operatorPage(path: string, timezoneId?: string): Promise<Page> {
  const page = await dashboardPage(browser, svc, path, undefined, { timezoneId });
  clock.advance(30_000); // one code per 30-second step
  await signIn(page, operator.email, operator.password, totpCode(svc));
  return page;
}

/**
 * Waits until the address holds `search` and the collections table shows exactly `expected` (the previous
 * result stays on screen while the next loads), with its count above it; fails after a minute.
 */
async function expectListed(page: Page, expected: string[], search: RegExp): Promise<void> {
  await page.waitForURL(search);
  const table = page.getByRole('region', { name: 'Collections found' });
  const want = [...expected].sort();
  const deadline = Date.now() + 60_000;
  let shown: string[] = [];
  while (Date.now() < deadline) {
    shown = (await table.locator('tbody tr td:first-child .muted').allTextContents()).sort();
    if (JSON.stringify(shown) === JSON.stringify(want)) break;
    await page.waitForTimeout(100);
  }
  expect(shown).toEqual(want);
  await page.getByText(new RegExp(`^${want.length} collections? created from`)).waitFor();
}

describeBrowser("the operator's collections and a payment's page", () => {
  it('names the business of each row and searches by business, gateway reference and customer number', async () => {
    const page = await operatorPage('/collections');
    const table = page.getByRole('region', { name: 'Collections found' });
    await expectListed(page, Object.values(refs), /\/collections/);
    const row = (reference: string) => table.locator('tr', { hasText: reference });
    await row(refs.toolsOther).getByRole('link', { name: 'Nairobi Tools' }).waitFor();
    await row(refs.books).getByRole('link', { name: 'Kampala Books' }).waitFor();
    await row(refs.books).getByText('256777000201').waitFor();

    const form = page.getByRole('form', { name: 'Search collections' });
    await form.getByLabel('Business').selectOption({ label: `Nairobi Tools (#${tools.businessId})` });
    await form.getByRole('button', { name: 'Search' }).click();
    await expectListed(page, [refs.toolsSame, refs.toolsOther], new RegExp(`business=${tools.businessId}`));

    await form.getByLabel('Business').selectOption({ label: 'Any' });
    await form.getByLabel('Customer number').fill('256777000201');
    await form.getByRole('button', { name: 'Search' }).click();
    await expectListed(page, [refs.books, refs.toolsSame], /customer=256777000201/);
    expect(page.url()).not.toContain('business=');

    await form.getByLabel('Customer number').fill('');
    await form.getByLabel('Gateway reference').fill(refs.toolsOther);
    await form.getByRole('button', { name: 'Search' }).click();
    await expectListed(page, [refs.toolsOther], /gateway=/);

    await form.getByLabel('Gateway reference').fill('');
    await form.getByLabel('Merchant reference').fill('ORD-BOOKS-0042');
    await form.getByRole('button', { name: 'Search' }).click();
    await expectListed(page, [refs.books], /reference=ORD-BOOKS-0042/);

    await form.getByLabel('Merchant reference').fill('');
    await form.getByLabel('Customer number').fill('2'.repeat(65));
    await form.getByRole('button', { name: 'Search' }).click();
    await fieldError(page, 'Search collections', 'account_number').getByText(/64/).waitFor();
    await page.context().close();
  }, 120_000);

  it("shows an operator the business's name, narration, customer number and every posting, times in the viewer's zone", async () => {
    const page = await operatorPage(`/collections/${refs.books}`, 'Africa/Kampala');
    await page.getByRole('heading', { name: `Collection ${refs.books}` }).waitFor();
    await page.getByRole('link', { name: 'Kampala Books' }).waitFor();
    const payment = page.getByRole('region', { name: 'Payment' });
    await payment.getByText('Order 0042 of books').waitFor();
    await payment.getByText('256777000201').waitFor();
    const postings = page.getByRole('region', { name: 'Ledger postings' });
    await postings.getByText('fee_revenue').waitFor();
    await postings.getByText('processor_clearing').waitFor();
    // in Kampala (UTC+3) with the UTC time on hover
    const created = await svc.services.db.one<{ at: Date }>('SELECT created_at AS at FROM collections WHERE gateway_reference = $1', [refs.books]);
    const utc = created.at.toISOString().slice(0, 19);
    const local = new Date(Date.parse(`${utc}Z`) + 3 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
    const time = payment.locator(`time[title="${utc.replace('T', ' ')} UTC"]`).first();
    expect(await time.textContent()).toBe(`${local} GMT+3`);
    await page.context().close();
  }, 120_000);

  it("shows a merchant's owner its payment with the business's name and without the service's own ledger accounts", async () => {
    const page = await dashboardPage(browser, svc, `/payments/${refs.books}`);
    await signIn(page, owner.email, owner.password);
    await page.getByRole('heading', { name: `Payment ${refs.books}` }).waitFor();
    await page.getByText('Kampala Books', { exact: true }).waitFor();
    expect(await page.locator('h1 + p').textContent()).toBe('Kampala Books'); // its name, not its number
    const payment = page.getByRole('region', { name: 'Payment' });
    await payment.getByText('Order 0042 of books').waitFor();
    await payment.getByText('256777000201').waitFor();
    const postings = page.getByRole('region', { name: 'Ledger postings' });
    await postings.getByText('available').first().waitFor();
    expect(await postings.getByText('fee_revenue').count()).toBe(0);
    expect(await postings.getByText('processor_clearing').count()).toBe(0);
    expect(await page.getByRole('region', { name: 'Processor request' }).count()).toBe(0);
    await page.context().close();
  }, 120_000);
});

describeBrowser('the audit log', () => {
  it('reads as changes, filters by action, person and dates, and its table is reachable by keyboard', async () => {
    // a change by the merchant's owner and one by the operator key
    const ownerPage = await dashboardPage(browser, svc, '/');
    await signIn(ownerPage, owner.email, owner.password);
    await ownerPage.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await ownerPage.context().close();
    expect((await svc.admin.patch(`/v1/admin/api-tokens/${books.apiTokenId}`, { email_user: true })).status).toBe(200);
    // a person's role changed: the roles read in words, as the team page names them
    const clerk = await createUser(svc, { role: 'merchant_viewer', business_id: books.businessId });
    expect((await svc.admin.patch(`/v1/admin/users/${clerk.id}`, { role: 'merchant_developer' })).status).toBe(200);

    const page = await operatorPage('/audit');
    const entries = page.getByRole('region', { name: 'Audit entries' });
    const update = entries.locator('tr', { hasText: 'updateApiToken' });
    await update.getByText('email_user: no → yes').waitFor();
    await entries.locator('tr', { hasText: 'updateUser' }).getByText('role: Viewer → Developer').waitFor();
    expect(await entries.getByText('merchant_viewer').count()).toBe(0);

    const form = page.getByRole('form', { name: 'Filter the audit log' });
    await form.getByLabel('Action').fill('createBusiness');
    await form.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.waitForURL(/action=createBusiness/);
    // the list shows the earlier page until the filtered one arrives: wait for the rows of other actions to go
    await entries.locator('tbody tr', { hasNotText: 'createBusiness' }).first().waitFor({ state: 'detached' });
    const created = entries.locator('tbody tr', { hasText: 'name: Kampala Books' });
    await created.getByText('Created').waitFor();
    expect(await entries.locator('tbody tr').count()).toBe(2);

    await form.getByLabel('Action').fill('updateApiToken');
    await form.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.waitForURL(/action=updateApiToken/);
    await entries.locator('tbody tr', { hasNotText: 'updateApiToken' }).first().waitFor({ state: 'detached' });
    await entries.locator('tbody tr').first().waitFor();
    expect(new Set(await entries.locator('tbody tr td:nth-child(3)').allTextContents())).toEqual(new Set(['updateApiToken']));

    await form.getByLabel('Action').fill('');
    await form.getByLabel('Person').selectOption({ label: owner.email });
    await form.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.waitForURL(new RegExp(`person=${owner.id}`));
    await entries.locator('tbody tr', { hasNotText: owner.email }).first().waitFor({ state: 'detached' });
    await entries.locator('tbody tr', { hasText: 'login' }).first().waitFor();
    expect(new Set(await entries.locator('tbody tr td:nth-child(2)').allTextContents())).toEqual(new Set([owner.email]));

    // a window before anything happened
    await form.getByLabel('Person').selectOption({ label: 'Anyone' });
    await form.getByLabel('From (UTC)').fill('2001-01-01T00:00');
    await form.getByLabel('To (UTC)').fill('2001-01-02T00:00');
    await form.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.getByText('No entry matches these filters.').waitFor();

    await form.getByRole('button', { name: 'Clear filters' }).click();
    await form.getByLabel('Action').fill('update-api-token');
    await form.getByRole('button', { name: 'Filter', exact: true }).click();
    await fieldError(page, 'Filter the audit log', 'action').waitFor();

    // the table's scroll region takes the focus from the keyboard
    await form.getByLabel('Action').fill('');
    await form.getByRole('button', { name: 'Filter', exact: true }).click();
    await entries.waitFor();
    expect(await entries.getAttribute('tabindex')).toBe('0');
    await form.getByRole('button', { name: 'Filter', exact: true }).focus();
    let reached = false;
    for (let i = 0; i < 10 && !reached; i += 1) {
      await page.keyboard.press('Tab');
      reached = await entries.evaluate((el) => el === document.activeElement);
    }
    expect(reached).toBe(true);
    await page.context().close();
  }, 120_000);
});

describeBrowser('payments and webhook deliveries on a phone', () => {
  /** True when the element lies wholly inside the phone's width. */
  const onScreen = async (locator: ReturnType<Page['locator']>) => {
    const box = await locator.boundingBox();
    return box !== null && box.x >= 0 && box.x + box.width <= PHONE.width;
  };

  it('shows each payment as a card with its reference, status and amount first, and each delivery with its re-send', async () => {
    const page = await dashboardPage(browser, svc, '/payments', PHONE);
    await signIn(page, owner.email, owner.password);
    const card = page.getByRole('region', { name: 'Payments found' }).getByRole('row', { name: /ORD-BOOKS-0042/ });
    const amount = card.getByText('50,000 UGX');
    await amount.waitFor();
    expect(await onScreen(amount)).toBe(true);
    expect(await onScreen(card.getByText('COMPLETED', { exact: true }))).toBe(true);
    expect(await onScreen(card.getByRole('link', { name: 'ORD-BOOKS-0042' }))).toBe(true);
    // the lead cells come first in the card, the rest under their headings
    const cells = await card.getByRole('cell').evaluateAll((tds) => tds.map((td) => ({ label: td.getAttribute('data-label'), top: td.getBoundingClientRect().top })).sort((a, b) => a.top - b.top).map((c) => c.label));
    expect(cells.slice(0, 3).sort()).toEqual(['Amount', 'Reference', 'Status']);
    expect(await fitsWidth(page)).toBe(true);

    await navTo(page, 'Webhook deliveries');
    const delivery = page.getByRole('region', { name: 'Deliveries' }).getByRole('row', { name: new RegExp(refs.books) });
    const resend = delivery.getByRole('button', { name: `Re-send webhook of ${refs.books}` });
    await resend.waitFor();
    expect(await onScreen(resend)).toBe(true);
    expect(await onScreen(delivery.getByText('COMPLETED', { exact: true }))).toBe(true);
    expect(await fitsWidth(page)).toBe(true);
    await page.context().close();
  }, 120_000);
});
