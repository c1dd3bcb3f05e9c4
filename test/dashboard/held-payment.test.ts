// Proves, in Chromium against a live deployment (APP_ENV live, a fake MTN over real HTTP), that the operator's overview
// counts held payments and links to the Collections list of them ("Held only"), which says why each is held and what
// to do next, whose "Download CSV" holds only them, and passes axe; that an operator admin sees a
// held payment's processor request with our reference at the processor and why it is held, resolves it from the collection page (outcome, note, confirm)
// and then sees the resolution; operator support sees the held request without the form.
import type { Browser } from 'playwright-core';
import { FakeMtnMomo } from '../fakes/mtn-momo';
import { seriousViolations } from '../helpers/axe';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, download, signIn } from '../helpers/dashboard';
import { FAST_PROCESSORS, liveMerchant, requestOf } from '../helpers/live';
import type { LiveMerchant } from '../helpers/live';
import { expectOk } from '../helpers/merchants';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, totpCode } from '../helpers/users';
import { parseCsv } from '../reports/csv';

/** the fake's number that succeeds for one unit less than asked (test/fakes/mtn-momo.ts) */
const SHORT_PAYER = '46733123459';
const clock = new Clock();
let fake: FakeMtnMomo;
let svc: TestService;
let m: LiveMerchant;
let browser: Browser;
let hooks: Receiver;
let ref: string;

beforeAll(async () => {
  fake = new FakeMtnMomo();
  await fake.start();
  hooks = await startReceiver();
  svc = await startTestService({ env: { APP_ENV: 'live', MTN_MOMO_BASE_URL: fake.url, ...FAST_PROCESSORS }, now: clock.now });
  m = await liveMerchant(svc, { serviceType: 'mtn_momo', currency: 'UGX', credentials: fake.credentials(), webhookUrl: hooks.url });
  const asked = { currency: 'UGX', amount: 50000, payment_method: 'MOBILE_MONEY', account_number: SHORT_PAYER, merchant_reference: 'HELD-BROWSER-1', narration: 'Order held for review' };
  ref = expectOk(await m.client.post('/v1/collections/request-to-pay', asked)).gateway_reference;
  await eventually(async () => (await requestOf(svc, ref))?.state === 'held', 15_000, 'held');
  browser = (await launchBrowser()) as Browser;
}, 180_000);
afterAll(async () => {
  await closeAll(browser, svc, hooks);
  await fake?.stop();
});

async function operatorPage(role: 'operator_admin' | 'operator_support') {
  const user = await createUser(svc, { role, totp: true });
  const page = await dashboardPage(browser, svc, `/collections/${ref}`);
  clock.advance(30_000); // one code per 30-second step
  await signIn(page, user.email, user.password, totpCode(svc));
  const request = page.getByRole('region', { name: 'Processor request' });
  await request.getByText(/^Held: .*4999900/).waitFor();
  // our reference at the processor, to look the payment up there
  const sent = await svc.services.db.one<{ reference: string }>('SELECT p.reference FROM processor_requests p JOIN collections c ON c.id = p.collection_id WHERE c.gateway_reference = $1', [ref]);
  await request.getByText(sent.reference, { exact: true }).waitFor();
  return { page, request };
}

describeBrowser('a held payment on the operator collection page', () => {
  it('is counted on the overview, whose link lists the held payments with why and what to do next', async () => {
    const settled = expectOk(await m.client.post('/v1/collections/request-to-pay', { currency: 'UGX', amount: 1000, payment_method: 'MOBILE_MONEY', account_number: '256772000123', merchant_reference: 'NOT-HELD-1', narration: 'Order paid in full' })).gateway_reference;
    await eventually(async () => (await requestOf(svc, settled))?.state === 'settled', 15_000, 'settled');
    const user = await createUser(svc, { role: 'operator_support', totp: true });
    const page = await dashboardPage(browser, svc, '/overview');
    clock.advance(30_000);
    await signIn(page, user.email, user.password, totpCode(svc));
    const waiting = page.getByRole('region', { name: 'Waiting on an operator' });
    await waiting.getByRole('listitem').filter({ hasText: /^1\s*held payment$/ }).waitFor();
    await waiting.getByRole('link', { name: 'held payment', exact: true }).click();
    await page.getByRole('heading', { name: 'What to do with a held payment' }).waitFor();
    await expect(page.getByRole('checkbox', { name: 'Held only' }).isChecked()).resolves.toBe(true);
    await page.getByText(/^1 collection created from/).waitFor();
    const table = page.getByRole('region', { name: 'Collections found' });
    const row = table.getByRole('row').filter({ hasText: 'HELD-BROWSER-1' });
    await row.getByRole('cell', { name: 'the processor confirmed 4999900 minor units, we asked for 5000000' }).waitFor();
    expect(await table.getByText('NOT-HELD-1').count()).toBe(0);
    expect(await page.getByRole('main').innerText()).toContain('resolve it as COMPLETED');
    // the list's Download CSV keeps "Held only": the file holds the held payment and not the settled one
    await page.getByText('of every collection these filters find (held only)').waitFor();
    const file = parseCsv((await download(page, 'Download CSV')).text);
    expect(file.map((r) => r.merchant_reference)).toEqual(['HELD-BROWSER-1']);
    expect(await seriousViolations(page)).toEqual([]);
    // the operator takes it from there: its page, with our reference at the processor
    await row.getByRole('link', { name: 'HELD-BROWSER-1' }).click();
    await page.getByRole('region', { name: 'Processor request' }).getByText(/^Held: .*4999900/).waitFor();
    await page.context().close();
  }, 120_000);

  it('shows support the held request without the resolve form', async () => {
    const { page, request } = await operatorPage('operator_support');
    await request.getByText('held', { exact: true }).waitFor();
    expect(await page.getByRole('form', { name: 'Resolve held payment' }).count()).toBe(0);
    await page.context().close();
  }, 120_000);

  it('lets an operator admin resolve it as COMPLETED with a note, then shows who decided', async () => {
    const { page, request } = await operatorPage('operator_admin');
    const form = page.getByRole('form', { name: 'Resolve held payment' });
    await expect(form.getByRole('button', { name: 'Resolve held payment' }).isDisabled()).resolves.toBe(true);
    await form.getByRole('radio', { name: 'COMPLETED' }).check();
    await form.getByLabel('Note').fill('MTN confirmed 50000 UGX (ticket 88231)');
    await form.getByRole('button', { name: 'Resolve held payment' }).click(); // the confirm dialog is accepted
    await request.getByText(/Resolved as COMPLETED by operator\.admin\..* UTC: MTN confirmed 50000 UGX \(ticket 88231\)/).waitFor();
    await form.waitFor({ state: 'detached' });
    await request.getByText('settled', { exact: true }).waitFor();
    expect((await requestOf(svc, ref))?.state).toBe('settled');
    await page.getByRole('region', { name: 'Payment' }).getByText('COMPLETED').first().waitFor();
    await page.context().close();
  }, 120_000);
});
