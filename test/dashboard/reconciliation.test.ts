// Proves, in Chromium against a live deployment (APP_ENV live, the fake Daraja over real HTTP), the operator's
// Reconciliation page: found in the console's menu, it takes a MID's M-Pesa statement file uploaded from the
// page (one payment paid 10.00 over), shows the day's totals of both sides per currency and the item in its
// state, and an operator admin's acknowledgement with a reason shows as the item's decision with who made
// it, as the database keeps it; the same file again creates nothing; the CSV export link names the MID and
// day.
import type { Browser, Page } from 'playwright-core';
import { mpesaStatement } from '../fakes/mpesa-statement';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, navTo, signIn } from '../helpers/dashboard';
import { collectedKes, mpesaRefunds } from '../helpers/mpesa-refunds';
import type { MpesaRefunds } from '../helpers/mpesa-refunds';
import { expectOk } from '../helpers/merchants';
import { Clock, createUser, totpCode } from '../helpers/users';

const clock = new Clock();
let live: MpesaRefunds | undefined;
let browser: Browser;
let over = '';
let statement = '';

beforeAll(async () => {
  live = await mpesaRefunds(clock);
  const refs = [await collectedKes(live.m, 'RECON-UI-1', '254708374101'), await collectedKes(live.m, 'RECON-UI-2', '254708374102')];
  over = (await live.svc.services.db.one<{ receipt: string }>(
    'SELECT pr.receipt FROM processor_requests pr JOIN collections c ON c.id = pr.collection_id WHERE c.gateway_reference = $1', [refs[0]],
  )).receipt;
  statement = mpesaStatement(live.fake, { amounts: new Map([[over, 1510]]) });
  browser = (await launchBrowser()) as Browser;
}, 180_000);
afterAll(async () => {
  await closeAll(browser, live);
});

const items = (page: Page) => page.getByRole('region', { name: 'Items' });

async function upload(page: Page) {
  const form = page.getByRole('form', { name: 'Upload a statement' });
  await form.getByLabel(/^Statement file/).setInputFiles({ name: 'statement.csv', mimeType: 'text/csv', buffer: Buffer.from(statement) });
  await form.getByRole('button', { name: 'Upload statement' }).click();
  return form.getByRole('status');
}

describeBrowser('the Reconciliation page', () => {
  it('uploads a statement with a difference, shows the item, and an acknowledgement shows as its decision', async () => {
    const svc = live!.svc;
    const midId = live!.m.midId;
    const operator = await createUser(svc, { role: 'operator_admin', totp: true });
    const page = await dashboardPage(browser, svc, '/overview');
    clock.advance(30_000);
    await signIn(page, operator.email, operator.password, totpCode(svc));
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await navTo(page, 'Reconciliation');
    await page.getByRole('heading', { name: 'Reconciliation', level: 1 }).waitFor();

    const chooser = page.getByRole('form', { name: 'Reconciliation day' });
    await chooser.getByLabel('MID').fill(String(midId));
    await chooser.getByRole('button', { name: 'Show' }).click();
    await (await upload(page)).getByText('Statement taken in: 2 lines matched.').waitFor();

    // the day of the payments, as the API lists their items
    const { day } = (expectOk(await svc.admin.get(`/v1/admin/mids/${midId}/reconciliation-items?state=amount_over`)).items as { day: string }[])[0];
    await chooser.getByLabel('Day (UTC, yyyy-mm-dd)').fill(day);
    await chooser.getByRole('button', { name: 'Show' }).click();
    await page.getByRole('heading', { name: `Totals for ${day} (UTC)` }).waitFor();
    expect(new URL(page.url()).searchParams.get('mid')).toBe(String(midId));
    const totals = page.getByRole('region', { name: `Totals for ${day} (UTC)` });
    // one currency, one row: the processor's 1,510.00 + 1,500.00, then ours
    const kes = totals.getByRole('region', { name: 'Totals per currency' }).getByRole('row', { name: /KES/ });
    await kes.waitFor();
    expect(await kes.getByRole('cell').allInnerTexts()).toEqual(['KES', '3,010.00 KES', '3,000.00 KES']);
    expect(await totals.getByRole('row').count()).toBe(2); // the heading and KES
    const row = items(page).getByRole('row', { name: new RegExp(over) });
    await row.getByText('amount_over').waitFor();
    await row.getByText('1,510.00 KES').waitFor();
    const expectedCsv = `/v1/admin/mids/${midId}/reconciliation-items/export?day=${day}`;
    expect(await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href')).toBe(expectedCsv);

    // a reason too short leaves the buttons off; then the acknowledgement
    const decide = row.getByRole('form', { name: `Decide item ${over}` });
    await decide.getByLabel('Reason').fill('ok');
    expect(await decide.getByRole('button', { name: 'Acknowledge' }).isDisabled()).toBe(true);
    await decide.getByLabel('Reason').fill('Safaricom paid 10.00 over: claimed back');
    await decide.getByRole('button', { name: 'Acknowledge' }).click();
    await row.getByText('acknowledge: Safaricom paid 10.00 over: claimed back').waitFor();
    await row.getByText(operator.email).waitFor();
    expect(await row.getByRole('button').count()).toBe(0);
    const kept = await svc.services.db.one("SELECT resolution, action, reason, requested_by FROM reconciliation_items WHERE state = 'amount_over'");
    expect(kept).toEqual({ resolution: 'resolved', action: 'acknowledge', reason: 'Safaricom paid 10.00 over: claimed back', requested_by: operator.email });

    // the same file again creates nothing
    const before = await svc.services.db.one('SELECT count(*)::int AS n FROM reconciliation_items');
    await (await upload(page)).getByText('This statement was taken in already: nothing was created.').waitFor();
    expect(await svc.services.db.one('SELECT count(*)::int AS n FROM reconciliation_items')).toEqual(before);
    await page.context().close();
  });
});
