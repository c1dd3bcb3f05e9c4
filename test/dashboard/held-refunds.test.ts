// Proves, in Chromium against a live deployment (APP_ENV live, the fake Daraja over real HTTP), refunds held for
// an operator (M-Pesa answered a reversal "already reversed", R000001): the overview counts them and links to the
// Refunds page filtered to them ("Held only"), where each is marked "Held for operator" with its reason; operator
// support sees the mark without a Resolve button; a merchant's owner sees the refund as the merchant API reads it,
// without the mark; an operator admin decides each (outcome, a required note shown at its field, a confirmation):
// COMPLETED pays the refund's hold out, FAILED returns it to the wallet, each audited, and the row then shows the
// decision.
import type { Browser, Page } from 'playwright-core';
import { RESOLVED_FAILED_REASON } from '../../src/refunds';
import type { FakeMpesa } from '../fakes/mpesa';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, fieldError, signIn } from '../helpers/dashboard';
import type { LiveMerchant } from '../helpers/live';
import { collectedKes, mpesaRefunds } from '../helpers/mpesa-refunds';
import type { MpesaRefunds } from '../helpers/mpesa-refunds';
import { reverseOutside } from '../helpers/mpesa-outside';
import { expectOk } from '../helpers/merchants';
import { eventually } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import type { TestService } from '../helpers/service';
import { Clock, createUser, totpCode } from '../helpers/users';

const clock = new Clock();
let live: MpesaRefunds | undefined;
let fake: FakeMpesa;
let hooks: Receiver;
let svc: TestService;
let m: LiveMerchant;
let browser: Browser;
let seq = 0;
/** two refunds held for an operator, and one that completed */
const held: { reference: string; merchantReference: string }[] = [];
let settled: { reference: string; merchantReference: string };

/** A COMPLETED collection of KES 1,500. */
async function collected(): Promise<string> {
  seq += 1;
  return collectedKes(m, `HRUI-${process.pid}-${seq}`);
}

async function refund(collection: string) {
  seq += 1;
  const merchantReference = `RFD-HELD-UI-${seq}`;
  const r = expectOk(await m.client.post(`/v1/collections/${collection}/refunds`, { merchant_reference: merchantReference, reason: 'Order cancelled' }));
  return { reference: r.gateway_reference as string, merchantReference };
}

const refundRow = (reference: string) =>
  svc.services.db.one<{ status: string; send_state: string; held_reason: string | null; resolved_by: string | null }>(
    'SELECT status, send_state, held_reason, resolved_by FROM refunds WHERE gateway_reference = $1', [reference]);

/** A refund M-Pesa answers "already reversed": its payment is reversed outside this refund first. */
async function heldRefund() {
  const collection = await collected();
  const { receipt } = await svc.services.db.one<{ receipt: string }>('SELECT p.receipt FROM processor_requests p JOIN collections c ON c.id = p.collection_id WHERE c.gateway_reference = $1', [collection]);
  await reverseOutside(fake, m.midId, collection, receipt, hooks.url, String(seq));
  const r = await refund(collection);
  await eventually(async () => (await refundRow(r.reference)).send_state === 'held', 15_000, 'refund held');
  return r;
}

const balance = async () => expectOk(await m.client.get('/v1/data/wallets/KES/balance'));
const journalKinds = async (reference: string) =>
  (await svc.services.db.any<{ kind: string }>('SELECT j.kind FROM journals j JOIN refunds r ON r.id = j.refund_id WHERE r.gateway_reference = $1 ORDER BY j.id', [reference])).map((j) => j.kind);

beforeAll(async () => {
  live = await mpesaRefunds(clock);
  ({ fake, hooks, svc, m } = live);
  held.push(await heldRefund(), await heldRefund());
  settled = await refund(await collected());
  await eventually(async () => (await refundRow(settled.reference)).status === 'COMPLETED', 15_000, 'refund completed');
  browser = (await launchBrowser()) as Browser;
}, 240_000);
afterAll(async () => {
  await closeAll(browser, live);
});

async function operatorPage(role: 'operator_admin' | 'operator_support', path: string) {
  const user = await createUser(svc, { role, totp: true });
  const page = await dashboardPage(browser, svc, path);
  clock.advance(30_000); // one code per 30-second step
  await signIn(page, user.email, user.password, totpCode(svc));
  return { page, user };
}

const refundsTable = (page: Page) => page.getByRole('region', { name: 'Refunds found' });
const rowOf = (page: Page, merchantReference: string) => refundsTable(page).getByRole('row', { name: new RegExp(`${merchantReference}\\b`) });

describeBrowser('refunds held for an operator in the dashboard', () => {
  it('counts them on the overview, links to the Refunds page filtered to them and marks each with its reason; support gets no Resolve button', async () => {
    const { page } = await operatorPage('operator_support', '/overview');
    const waiting = page.getByRole('region', { name: 'Waiting on an operator' });
    const link = waiting.getByRole('link', { name: 'held refunds' });
    await link.waitFor();
    expect(await waiting.getByRole('listitem').filter({ has: page.getByRole('link', { name: 'held refunds' }) }).textContent()).toMatch(/^\s*2\s*held refunds$/);
    await link.click();
    await page.getByRole('heading', { name: 'Refunds', level: 1 }).waitFor();
    expect(new URL(page.url()).search).toBe('?held=true');
    expect(await page.getByRole('form', { name: 'Filter refunds' }).getByLabel('Held only').isChecked()).toBe(true);
    for (const h of held) {
      const row = rowOf(page, h.merchantReference);
      await row.getByText('Held for operator').waitFor();
      const { held_reason: reason } = await refundRow(h.reference);
      expect(reason).toMatch(/held for an operator/);
      await row.getByText(reason!).waitFor();
      await row.getByText('PROCESSING').waitFor();
    }
    // exactly the held ones, as the API lists them
    expect(await refundsTable(page).getByRole('row').count()).toBe(3); // the heading row and the two held
    expect(await rowOf(page, settled.merchantReference).count()).toBe(0);
    expect(expectOk(await svc.admin.get('/v1/admin/refunds?held=true')).map((r: { gateway_reference: string }) => r.gateway_reference).sort()).toEqual(held.map((h) => h.reference).sort());
    expect(await page.getByRole('button', { name: /^Resolve held refund/ }).count()).toBe(0);
    // unticking the filter lists every refund again, the completed one unmarked
    const filter = page.getByRole('form', { name: 'Filter refunds' });
    await filter.getByLabel('Held only').uncheck();
    await filter.getByRole('button', { name: 'Apply' }).click();
    await rowOf(page, settled.merchantReference).getByText('COMPLETED').waitFor();
    expect(await rowOf(page, settled.merchantReference).getByText('Held for operator').count()).toBe(0);
    expect(new URL(page.url()).search).toBe('');
    await page.context().close();
  }, 120_000);

  it("shows a merchant's owner a held refund as the merchant API reads it, without the operator's mark or filter", async () => {
    const owner = await createUser(svc, { role: 'merchant_owner', business_id: m.businessId });
    const page = await dashboardPage(browser, svc, '/refunds');
    await signIn(page, owner.email, owner.password);
    const asRead = expectOk(await m.client.get(`/v1/refunds/${held[0].reference}`));
    expect(asRead).toMatchObject({ transaction_status: 'PROCESSING', failure_reason: null });
    const row = rowOf(page, held[0].merchantReference);
    await row.getByText(asRead.transaction_status, { exact: true }).waitFor();
    expect(await page.getByText('Held for operator').count()).toBe(0);
    expect(await page.getByText(/held for an operator/).count()).toBe(0);
    expect(await page.getByLabel('Held only').count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Resolve held refund/ }).count()).toBe(0);
    await page.context().close();
  }, 120_000);

  it('lets an operator admin decide each: the note is required at its field, COMPLETED pays the hold out, FAILED returns it, each audited', async () => {
    const { page, user } = await operatorPage('operator_admin', '/refunds?held=true');
    const [first, second] = held;
    const before = await balance();

    await page.getByRole('button', { name: `Resolve held refund ${first.merchantReference}` }).click();
    const form = page.getByRole('form', { name: 'Resolve held refund' });
    expect(await form.getByRole('button', { name: 'Resolve held refund' }).isDisabled()).toBe(true);
    await form.getByRole('radio', { name: 'COMPLETED' }).check();
    // no note: the API's refusal at the Note field, and nothing changes
    await form.getByRole('button', { name: 'Resolve held refund' }).click(); // the confirm dialog is accepted
    await fieldError(page, 'Resolve held refund', 'note').waitFor();
    expect(await refundRow(first.reference)).toMatchObject({ status: 'PROCESSING', send_state: 'held' });
    expect(await balance()).toEqual(before);

    const note = 'M-Pesa support confirmed the customer has the money back (ticket 99120)';
    await form.getByLabel('Note').fill(note);
    await form.getByRole('button', { name: 'Resolve held refund' }).click();
    await page.getByRole('status').getByText(`Refund ${first.merchantReference} resolved as COMPLETED.`).waitFor();
    await form.waitFor({ state: 'detached' });
    // no longer held: gone from the held list, the other still there
    await rowOf(page, first.merchantReference).waitFor({ state: 'detached' });
    await rowOf(page, second.merchantReference).getByText('Held for operator').waitFor();
    expect(await refundRow(first.reference)).toEqual({ status: 'COMPLETED', send_state: 'settled', held_reason: null, resolved_by: user.email });
    expect(await journalKinds(first.reference)).toEqual(['refund_hold', 'refund_out']);
    const paid = await balance();
    expect(paid).toMatchObject({ balance: before.balance - 1500, available_balance: before.available_balance, refund_held_balance: before.refund_held_balance - 1500 });
    const audit = await svc.services.db.one("SELECT actor_type, \"after\"->'resolution'->>'note' AS note FROM audit_log WHERE action = 'resolveHeldRefund' AND target_id = $1", [first.reference]);
    expect(audit).toEqual({ actor_type: 'user', note });

    await page.getByRole('button', { name: `Resolve held refund ${second.merchantReference}` }).click();
    await form.getByRole('radio', { name: 'FAILED' }).check();
    await form.getByLabel('Note').fill('The earlier reversal was of another payment (ticket 99121)');
    await form.getByRole('button', { name: 'Resolve held refund' }).click();
    await page.getByRole('status').getByText(`Refund ${second.merchantReference} resolved as FAILED.`).waitFor();
    await page.getByText('No refund matches these filters.').waitFor();
    expect(await refundRow(second.reference)).toEqual({ status: 'FAILED', send_state: 'settled', held_reason: null, resolved_by: user.email });
    expect(await journalKinds(second.reference)).toEqual(['refund_hold', 'refund_return']);
    expect(await balance()).toMatchObject({ balance: paid.balance, available_balance: paid.available_balance + 1500, refund_held_balance: paid.refund_held_balance - 1500 });
    expect(expectOk(await m.client.get(`/v1/refunds/${second.reference}`))).toMatchObject({ transaction_status: 'FAILED', failure_reason: RESOLVED_FAILED_REASON });
    expect((await svc.services.db.one<{ n: number }>("SELECT count(*)::int AS n FROM audit_log WHERE action = 'resolveHeldRefund' AND target_id = $1", [second.reference])).n).toBe(1);

    // every refund: each row shows the decision taken on it
    const filter = page.getByRole('form', { name: 'Filter refunds' });
    await filter.getByLabel('Held only').uncheck();
    await filter.getByRole('button', { name: 'Apply' }).click();
    await rowOf(page, first.merchantReference).getByText(new RegExp(`Resolved as COMPLETED by ${user.email.replace(/\./g, '\\.')} at .*: ${note.replace(/[()]/g, '\\$&')}`)).waitFor();
    await rowOf(page, second.merchantReference).getByText(/Resolved as FAILED by .*ticket 99121/).waitFor();
    expect(await page.getByText('Held for operator').count()).toBe(0);
    // and the overview waits on nothing held
    await page.goto(`${svc.url}/dashboard/overview`);
    const waiting = page.getByRole('region', { name: 'Waiting on an operator' });
    expect(await waiting.getByRole('listitem').filter({ has: page.getByRole('link', { name: 'held refunds' }) }).textContent()).toMatch(/^\s*0\s*held refunds$/);
    await page.context().close();
  }, 180_000);
});
