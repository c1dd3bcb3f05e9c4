// Proves, in Chromium against a real service and database with the fake Paystack over real HTTP, the
// merchant's Disputes page: a dispute opened by the customer's bank shows with its status, amount, stage,
// reason and the hours and minutes left to its deadline; an owner accepts part of it with a message, and the
// page then shows it accepted (the hold debited by that part, recorded from Paystack's answer); a dispute past
// its deadline says so and offers no Accept; a viewer sees the list without Accept; the operator's Disputes
// page lists every business's with the business.
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, fieldError, signIn } from '../helpers/dashboard';
import { startHostedWorld } from '../helpers/hosted';
import type { HostedWorld } from '../helpers/hosted';
import { cardPaid, disputeIn } from '../helpers/hosted-disputes';
import { createUser, totpCode } from '../helpers/users';

let w: HostedWorld;
let browser: Browser;

beforeAll(async () => {
  w = await startHostedWorld({ PROCESSOR_CHECK_SCHEDULE: '10m' });
  browser = (await launchBrowser()) as Browser;
}, 180_000);
afterAll(() => closeAll(browser, { close: () => w.close() }));

describeBrowser('card disputes in the dashboard', () => {
  it('shows a dispute with its countdown; an owner accepts part of it and sees it accepted; past the deadline it says so', async () => {
    const { tx } = await cardPaid(w);
    const d = w.paystack.disputes.open(tx, { note: 'Goods not received' });
    const row = await disputeIn(w, d.id, 'needs_response');
    const owner = await createUser(w.svc, { role: 'merchant_owner', business_id: w.businessId });
    const page = await dashboardPage(browser, w.svc, '/disputes');
    await signIn(page, owner.email, owner.password);
    await page.getByRole('heading', { name: 'Disputes', level: 1 }).waitFor();
    const line = page.getByRole('row', { name: new RegExp(row.gateway_reference) });
    await line.waitFor();
    const text = (await line.textContent()) ?? '';
    expect(text).toContain('needs_response');
    expect(text).toContain('25,000');
    expect(text).toContain('chargeback');
    expect(text).toContain('Goods not received');
    // the time left, counted from now to the recorded deadline: never more than it, at most a minute less
    const shown = /(\d+) h (\d+) min left/.exec(text);
    expect(shown).not.toBeNull();
    const leftMinutes = Number(shown![1]) * 60 + Number(shown![2]);
    const exact = (row.deadline_at.getTime() - Date.now()) / 60_000;
    expect(leftMinutes).toBeLessThanOrEqual(Math.ceil(exact));
    expect(leftMinutes).toBeGreaterThanOrEqual(Math.floor(exact) - 2);

    // more than the disputed amount: the API's refusal shows at the field and Paystack is told nothing
    await line.getByRole('button', { name: 'Accept' }).click();
    const scope = `Accept ${row.gateway_reference}`;
    const form = page.getByRole('form', { name: scope });
    await form.getByLabel('Amount to accept, optional').fill('30000');
    await form.getByLabel('Message to the processor').fill('Part of the order was delivered');
    await form.getByRole('button', { name: 'Confirm acceptance' }).click();
    expect(await fieldError(page, scope, 'amount').textContent()).toContain('at most the disputed 25000');
    expect(w.paystack.calls.filter((c) => c.path === `/dispute/${d.id}/resolve`)).toHaveLength(0);
    expect((await disputeIn(w, d.id, 'needs_response')).debited_minor).toBeNull();
    await form.getByLabel('Amount to accept, optional').fill('10000');
    await form.getByRole('button', { name: 'Confirm acceptance' }).click();
    await line.getByText('accepted').waitFor();
    expect(await line.getByRole('button', { name: 'Accept' }).count()).toBe(0);
    expect(await disputeIn(w, d.id, 'accepted')).toMatchObject({ debited_minor: 1_000_000n, resolution: 'merchant-accepted' });
    const entry = await w.svc.services.db.one("SELECT after FROM audit_log WHERE action = 'acceptAdminDispute' ORDER BY id DESC LIMIT 1");
    expect(entry.after).toMatchObject({ gateway_reference: row.gateway_reference, status: 'accepted', debited_amount: 10000 });

    // a second dispute, its deadline already past: the page says so and offers no Accept
    const late = await cardPaid(w);
    const old = w.paystack.disputes.open(late.tx, { at: new Date(Date.now() - 10 * 86_400_000) });
    const lateRow = await disputeIn(w, old.id, 'needs_response');
    await page.reload();
    const lateLine = page.getByRole('row', { name: new RegExp(lateRow.gateway_reference) });
    await lateLine.getByText('past deadline').waitFor();
    expect(await lateLine.getByRole('button', { name: 'Accept' }).count()).toBe(0);
    await page.close();

    // a viewer reads the list, without Accept
    const viewer = await createUser(w.svc, { role: 'merchant_viewer', business_id: w.businessId });
    const seen = await dashboardPage(browser, w.svc, '/disputes');
    await signIn(seen, viewer.email, viewer.password);
    await seen.getByRole('row', { name: new RegExp(lateRow.gateway_reference) }).waitFor();
    expect(await seen.getByRole('button', { name: 'Accept' }).count()).toBe(0);
    await seen.close();

    // the operator's page: every business's, with the business
    const operator = await createUser(w.svc, { role: 'operator_support', totp: true });
    const desk = await dashboardPage(browser, w.svc, '/disputes');
    await signIn(desk, operator.email, operator.password, totpCode(w.svc));
    const opLine = desk.getByRole('row', { name: new RegExp(row.gateway_reference) });
    await opLine.waitFor();
    expect(await opLine.textContent()).toContain('Lagos Books');
    await desk.close();
  }, 120_000);
});
