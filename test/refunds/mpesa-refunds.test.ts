// Proves M-Pesa refunds through the public API against the project's fake Daraja over real HTTP: the receipt the STK callback gave is kept with the collection and confirmed with the Transaction Status query (short code, amount, customer) before the Reversal names it; a forged callback naming another customer's receipt, or a receipt M-Pesa never issued, fails the refund with its reason and returns the money, and no reversal is sent; a payment whose callback was lost (completed by STK Push Query, so no receipt) fails its refund as "M-Pesa receipt unknown" without asking M-Pesa anything; a late Result ("already reversed" or a failure) for a refund already COMPLETED changes nothing: it stays COMPLETED, its journals, wallet and webhooks as they were; a reversal M-Pesa answers "already reversed" (R000001: the payment was reversed outside this refund) is held for an operator with its reason, its money still held, never failed back to the wallet, (the refunds list and the payment's own refunds list show operators why, the merchant's people null) until an operator admin resolves it (resolve-held): COMPLETED pays the hold out, FAILED returns it, each notified as any such refund; anything not held, bad input and any other role are refused and change nothing; the operator's refunds list and export with held=true find exactly the held refunds (a merchant user its own business's only, without the operator's side; the merchant API refuses the filter) and the overview counts them, reading them through a partial index and not every refund.
import { RECEIPT_UNKNOWN } from '../../src/processors/mpesa/refund-transformers';
import { refundWhere } from '../../src/refunds/filters';
import { RESOLVED_FAILED_REASON } from '../../src/refunds';
import type { FakeMpesa } from '../fakes/mpesa';
import { hooksFor, requestOf } from '../helpers/live';
import type { LiveMerchant } from '../helpers/live';
import { collectedKes, mpesaRefunds } from '../helpers/mpesa-refunds';
import type { MpesaRefunds } from '../helpers/mpesa-refunds';
import { reverseOutside } from '../helpers/mpesa-outside';
import { createBusiness, errorFields, expectOk } from '../helpers/merchants';
import { eventually } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import type { TestService } from '../helpers/service';
import { databaseState, outboxesStill } from '../helpers/state';
import { Clock, createUser, signedIn } from '../helpers/users';
import { parseCsv } from '../reports/csv';

let live: MpesaRefunds | undefined;
let fake: FakeMpesa;
let hooks: Receiver;
let svc: TestService;
let m: LiveMerchant;
let seq = 0;
/** the service's clock, moved by a step for each operator's two-factor code */
const clock = new Clock();

beforeAll(async () => {
  live = await mpesaRefunds(clock);
  ({ fake, hooks, svc, m } = live);
  // the merchant's summary e-mail of a refund's end, as the webhook, follows an operator's decision too
  expectOk(await svc.admin.patch(`/v1/admin/api-tokens/${m.apiTokenId}`, { email_merchant: true }));
}, 180_000); // a service start is over a minute on a loaded machine

afterAll(async () => {
  await live?.close();
});

afterEach(() => {
  fake.o.callbacks = 'once';
});

/** A COMPLETED collection of KES 1,500 from `phone`. */
async function collected(phone?: string): Promise<string> {
  seq += 1;
  return collectedKes(m, `MPR-${process.pid}-${seq}-${Date.now().toString(36)}`, phone);
}

async function refund(collection: string) {
  seq += 1;
  return expectOk(await m.client.post(`/v1/collections/${collection}/refunds`, { merchant_reference: `RFD-MP-${process.pid}-${seq}`, reason: 'Order cancelled' }));
}

async function ended(reference: string, status: string) {
  return eventually(async () => {
    const r = expectOk(await m.client.get(`/v1/refunds/${reference}`));
    return r.transaction_status === status ? r : undefined;
  }, 15_000, `refund ${status}`);
}

const balance = async () => expectOk(await m.client.get('/v1/data/wallets/KES/balance'));
const receiptOf = async (collection: string) => (await svc.services.db.one<{ receipt: string | null }>('SELECT p.receipt FROM processor_requests p JOIN collections c ON c.id = p.collection_id WHERE c.gateway_reference = $1', [collection])).receipt;
const refundUrl = async (gatewayReference: string) => {
  const { callback_token: token } = await svc.services.db.one<{ callback_token: string }>('SELECT callback_token FROM refunds WHERE gateway_reference = $1', [gatewayReference]);
  return `${svc.config.publicBaseUrl}/callbacks/mpesa/${token}`;
};

/**
 * Waits until nothing more can happen to a refund or its payment without a new word from outside, before a
 * "changes nothing" snapshot (never a fixed sleep): neither has a send or a status query due or under a
 * worker's claim (a hold lets go of a claim it came during, whose answer is then ignored), M-Pesa
 * has posted every Result it owes to the refund's callback URL, and its calls read the same twice in a row.
 */
async function quiet(reference: string): Promise<void> {
  const url = await refundUrl(reference);
  let last = '';
  await eventually(async () => {
    const { busy } = await svc.services.db.one<{ busy: number }>(
      `SELECT count(*)::int AS busy FROM refunds r JOIN processor_requests p ON p.collection_id = r.collection_id
        WHERE r.gateway_reference = $1 AND (r.next_send_at IS NOT NULL OR r.next_check_at IS NOT NULL OR (r.claimed_by IS NOT NULL AND r.send_state <> 'held')
          OR p.next_send_at IS NOT NULL OR p.next_check_at IS NOT NULL OR p.claimed_by IS NOT NULL)`,
      [reference],
    );
    const owed = fake.statusQueries.filter((q) => q.resultUrl === url).length + [...fake.reversals.values()].filter((x) => x.resultUrl === url && x.resultCode !== null).length;
    const posted = fake.resultsSent.filter((x) => x.url === url).length;
    const calls = [fake.calls.length, fake.statusQueries.length, fake.reversals.size, fake.resultsSent.length].join(' ');
    const same = calls === last;
    last = calls;
    return busy === 0 && posted >= owed && same ? true : undefined;
  }, 15_000, `refund ${reference} and its payment with nothing due or under way, and every Result M-Pesa owes posted`);
}

/** A callback nobody at Safaricom sent: a success naming `receipt`, posted to the collection's own callback URL. */
async function forgeCallback(collection: string, receipt: string): Promise<void> {
  const request = (await requestOf(svc, collection))!;
  const body = {
    Body: {
      stkCallback: {
        MerchantRequestID: '1234-5678-1', CheckoutRequestID: request.vendor_reference, ResultCode: 0, ResultDesc: 'The service request is processed successfully.',
        CallbackMetadata: { Item: [{ Name: 'Amount', Value: 1500 }, { Name: 'MpesaReceiptNumber', Value: receipt }, { Name: 'PhoneNumber', Value: 254708374149 }] },
      },
    },
  };
  const res = await fetch(`${svc.config.publicBaseUrl}/callbacks/mpesa/${request.callback_token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBeLessThan(300);
}

it('keeps the receipt of the callback (a later one cannot replace it), confirms it with Transaction Status, then reverses that receipt', async () => {
  const collection = await collected();
  const push = fake.byAccountReference(collection)!;
  expect(await receiptOf(collection)).toBe(push.receipt);
  // once the completion is confirmed, a later callback cannot replace the receipt
  await forgeCallback(collection, 'ZZZ1111111');
  expect(await receiptOf(collection)).toBe(push.receipt);
  const before = await balance();
  const r = await refund(collection);
  await ended(r.gateway_reference, 'COMPLETED');
  const url = await refundUrl(r.gateway_reference);
  const reversals = [...fake.reversals.values()].filter((x) => x.resultUrl === url);
  expect(reversals).toEqual([expect.objectContaining({ transactionId: push.receipt, amount: 1500, resultCode: '0' })]);
  expect(fake.statusQueries.filter((q) => q.resultUrl === url)[0]).toEqual({ transactionId: push.receipt, originalConversationId: null, resultUrl: url });
  expect(await balance()).toMatchObject({ available_balance: before.available_balance - 1500, refund_held_balance: 0 });
  expect(expectOk(await m.client.get(`/v1/collections/${collection}`)).refunded_amount).toBe(1500);
});

it('a late "already reversed" or failure Result for a COMPLETED refund holds nothing and fails nothing: it stays COMPLETED, the ledger unchanged', async () => {
  const collection = await collected();
  const r = await refund(collection);
  await ended(r.gateway_reference, 'COMPLETED');
  const url = await refundUrl(r.gateway_reference);
  await eventually(() => hooksFor(hooks.received, r.gateway_reference).some((h) => h.transaction_status === 'COMPLETED'), 10_000, 'the completion webhook');
  // the reversal's own Result (not the Transaction Status answer about the payment, which came to this URL too)
  const reversal = [...fake.reversals.values()].find((x) => x.resultUrl === url)!;
  const done = fake.resultsSent.find((x) => x.url === url && (x.body as { Result?: { OriginatorConversationID?: unknown } }).Result?.OriginatorConversationID === reversal.originatorConversationId)!;
  expect(done).toBeDefined();
  const state = async () => ({
    refund: await svc.services.db.one('SELECT status, send_state, held_reason, failure_reason, notification_seq, updated_at FROM refunds WHERE gateway_reference = $1', [r.gateway_reference]),
    journals: await journalKinds(r.gateway_reference),
    postings: await svc.services.db.one('SELECT count(*)::int AS n FROM postings p JOIN journals j ON j.id = p.journal_id JOIN refunds f ON f.id = j.refund_id WHERE f.gateway_reference = $1', [r.gateway_reference]),
    notifications: await svc.services.db.one('SELECT count(*)::int AS n FROM notifications n JOIN refunds f ON f.id = n.refund_id WHERE f.gateway_reference = $1', [r.gateway_reference]),
    wallet: await balance(),
    refunded: expectOk(await m.client.get(`/v1/collections/${collection}`)).refunded_amount,
  });
  await quiet(r.gateway_reference);
  const before = await state();
  expect(before.refund).toMatchObject({ status: 'COMPLETED', send_state: 'settled', held_reason: null, failure_reason: null });
  expect(before.journals).toEqual(['refund_hold', 'refund_out']);
  // the same Result again, now saying R000001 "already reversed", then R000002 (a failure): each on the refund's own URL
  const late = (code: string, desc: string) => {
    const body = done.body as { Result: Record<string, unknown> };
    return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ Result: { ...body.Result, ResultCode: code, ResultDesc: desc } }) });
  };
  expect((await late('R000001', 'The transaction has already been reversed')).status).toBe(200);
  expect((await late('R000002', 'The OriginalTransactionID is invalid')).status).toBe(200);
  await quiet(r.gateway_reference);
  expect(await state()).toEqual(before);
  expect(svc.logs.some((l) => l.includes('refund held for the operator') && l.includes(r.gateway_reference))).toBe(false);
  expect(hooksFor(hooks.received, r.gateway_reference).map((h) => h.transaction_status)).toEqual(['PROCESSING', 'COMPLETED']);
});

it.each([
  ["another customer's receipt", 'it was paid from another phone'],
  ['a receipt M-Pesa never issued', 'the receipt query answered ResultCode R000002'],
])('a forged callback naming %s fails the refund, returns the money and reverses nothing', async (what, why) => {
  const other = what.startsWith('another') ? fake.byAccountReference(await collected('254722000111'))!.receipt! : 'ZZZ9999999';
  fake.o.callbacks = 'drop';
  const collection = await collected();
  await forgeCallback(collection, other);
  await eventually(async () => (await receiptOf(collection)) === other, 10_000, 'forged receipt kept');
  const before = await balance();
  const r = await refund(collection);
  const failed = await ended(r.gateway_reference, 'FAILED');
  expect(failed.failure_reason).toMatch(new RegExp(`^M-Pesa does not confirm receipt ${other} as this payment: .*${why}`));
  const url = await refundUrl(r.gateway_reference);
  expect(fake.statusQueries.filter((q) => q.resultUrl === url).map((q) => q.transactionId)).toContain(other);
  expect([...fake.reversals.values()].filter((x) => x.resultUrl === url || x.transactionId === other)).toEqual([]);
  expect(await balance()).toMatchObject({ available_balance: before.available_balance, refund_held_balance: 0 });
  expect(expectOk(await m.client.get(`/v1/collections/${collection}`)).refunded_amount).toBe(0);
});

it('a payment completed without its callback has no receipt: the refund fails "M-Pesa receipt unknown" and M-Pesa is asked nothing', async () => {
  fake.o.callbacks = 'drop';
  const collection = await collected();
  expect(await receiptOf(collection)).toBeNull();
  const before = await balance();
  const r = await refund(collection);
  const failed = await ended(r.gateway_reference, 'FAILED');
  expect(failed.failure_reason).toBe(RECEIPT_UNKNOWN);
  const url = await refundUrl(r.gateway_reference);
  expect(fake.statusQueries.filter((q) => q.resultUrl === url)).toEqual([]);
  expect([...fake.reversals.values()].filter((x) => x.resultUrl === url)).toEqual([]);
  expect(await balance()).toMatchObject({ available_balance: before.available_balance, refund_held_balance: 0 });
});

/**
 * A refund M-Pesa answers "already reversed" (R000001), held for an operator: its collection's payment is
 * reversed outside this refund first (the merchant's M-Pesa portal, M-Pesa support, another client), so
 * the customer has the money back. `before`: the wallet before the refund was asked.
 */
async function heldRefund() {
  const collection = await reversedOutside();
  const before = await balance();
  const r = await refund(collection);
  const url = await refundUrl(r.gateway_reference);
  // M-Pesa takes our reversal, then its Result says R000001
  await eventually(() => [...fake.reversals.values()].find((x) => x.resultUrl === url && x.resultCode === 'R000001'), 10_000, 'the R000001 Result');
  const held = await heldRow(r.gateway_reference);
  return { collection, reference: r.gateway_reference as string, url, before, held };
}

/** A COMPLETED collection whose payment was reversed outside the refund (its refund's reversal is R000001). */
async function reversedOutside(): Promise<string> {
  const collection = await collected();
  const receipt = (await receiptOf(collection))!;
  await reverseOutside(fake, m.midId, collection, receipt, hooks.url, String(seq));
  return collection;
}

const heldRow = (reference: string) => eventually(async () => {
  const row = await svc.services.db.one<{ status: string; send_state: string; held_reason: string | null; next_check_at: Date | null; claimed_by: string | null }>(
    'SELECT status, send_state, held_reason, next_check_at, claimed_by FROM refunds WHERE gateway_reference = $1', [reference]);
  return row.send_state === 'held' ? row : undefined;
}, 15_000, 'refund held');

const journalKinds = async (reference: string) =>
  (await svc.services.db.any<{ kind: string }>('SELECT j.kind FROM journals j JOIN refunds r ON r.id = j.refund_id WHERE r.gateway_reference = $1 ORDER BY j.id', [reference])).map((j) => j.kind);

it('holds for an operator a refund M-Pesa answers "already reversed" (R000001): the hold stays, nothing returns to the wallet', async () => {
  const { collection, reference, url, before, held } = await heldRefund();
  expect(held).toEqual({ status: 'PROCESSING', send_state: 'held', held_reason: expect.stringMatching(/^M-Pesa (says this payment was already reversed|reports the reversal as failed without saying why) .*held for an operator/), next_check_at: null, claimed_by: null });
  expect(svc.logs.some((l) => l.includes('refund held for the operator') && l.includes(reference))).toBe(true);
  // the merchant sees it still in flight; its money stays in the refund's hold: not back in available, not out
  expect(expectOk(await m.client.get(`/v1/refunds/${reference}`))).toMatchObject({ transaction_status: 'PROCESSING', failure_reason: null });
  const after = await balance();
  expect(after).toMatchObject({ balance: before.balance, available_balance: before.available_balance - 1500, refund_held_balance: before.refund_held_balance + 1500 });
  expect(expectOk(await m.client.get(`/v1/collections/${collection}`)).refunded_amount).toBe(1500);
  expect(await journalKinds(reference)).toEqual(['refund_hold']);
  // the operator finds it in the refunds list with its reason
  const listed = expectOk(await svc.admin.get(`/v1/admin/refunds?collection_gateway_reference=${collection}`));
  expect(listed).toEqual([expect.objectContaining({ gateway_reference: reference, held_reason: held.held_reason, resolution: null })]);
  // and on the payment's own refunds list, as the refunds list shows it; the merchant's own people read null
  const ofCollection = expectOk(await svc.admin.get(`/v1/admin/collections/${collection}/refunds`));
  expect(ofCollection).toEqual(listed);
  expect(ofCollection[0].held_reason).toEqual(held.held_reason);
  const owner = await signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: m.businessId }));
  const ownView = expectOk(await owner.get(`/v1/admin/collections/${collection}/refunds`));
  expect(ownView).toEqual([expect.objectContaining({ gateway_reference: reference, transaction_status: 'PROCESSING', held_reason: null, resolution: null })]);
  // the Result again (M-Pesa repeating it) changes nothing, and nothing asks M-Pesa about it again
  await quiet(reference);
  const queries = fake.statusQueries.filter((q) => q.resultUrl === url).length;
  const repeat = fake.resultsSent.find((x) => x.url === url && JSON.stringify(x.body).includes('R000001'))!;
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(repeat.body) });
  expect(res.status).toBe(200);
  await quiet(reference);
  expect(await balance()).toEqual(after);
  expect((await svc.services.db.one('SELECT status, send_state FROM refunds WHERE gateway_reference = $1', [reference]))).toEqual({ status: 'PROCESSING', send_state: 'held' });
  expect(fake.statusQueries.filter((q) => q.resultUrl === url)).toHaveLength(queries);
});

const resolve = (reference: string, body: unknown) => svc.admin.post(`/v1/admin/refunds/${reference}/resolve-held`, body);
const emailsAbout = async (reference: string, status: string) =>
  (await svc.services.db.one<{ n: number }>('SELECT count(*)::int AS n FROM emails WHERE subject LIKE $1', [`Refund ${reference} ${status}:%`])).n;

it('resolve-held COMPLETED pays the hold out as a completed refund, notifies the merchant and keeps who decided and why, once', async () => {
  const { collection, reference, before } = await heldRefund();
  const note = 'M-Pesa support confirmed the customer has the money back (ticket 88310)';
  const data = expectOk(await resolve(reference, { outcome: 'COMPLETED', note }));
  expect(data).toMatchObject({
    gateway_reference: reference, transaction_status: 'COMPLETED', failure_reason: null, held_reason: null,
    resolution: { outcome: 'COMPLETED', note, resolved_by: 'operator key', resolved_at: expect.stringMatching(/Z$/) },
  });
  expect(await journalKinds(reference)).toEqual(['refund_hold', 'refund_out']);
  expect(await balance()).toMatchObject({ balance: before.balance - 1500, available_balance: before.available_balance - 1500, refund_held_balance: before.refund_held_balance });
  expect(expectOk(await m.client.get(`/v1/collections/${collection}`)).refunded_amount).toBe(1500);
  expect(await svc.services.db.one('SELECT send_state, held_reason FROM refunds WHERE gateway_reference = $1', [reference])).toEqual({ send_state: 'settled', held_reason: null });
  const hook = await eventually(() => hooksFor(hooks.received, reference).find((h) => h.transaction_status === 'COMPLETED'), 10_000, 'the completion webhook');
  expect(hook.sequence).toBe(2);
  expect(await emailsAbout(reference, 'COMPLETED')).toBe(1);
  const audit = await svc.services.db.one("SELECT actor_type, target_type, target_id, \"after\"->'resolution'->>'note' AS note FROM audit_log WHERE action = 'resolveHeldRefund' AND target_id = $1", [reference]);
  expect(audit).toEqual({ actor_type: 'operator_key', target_type: 'refund', target_id: reference, note });

  // once only: a second decision is refused and changes nothing (once the decision's e-mail and webhook are out)
  await outboxesStill(svc.services.db);
  const state = await databaseState(svc.services.db);
  const again = await resolve(reference, { outcome: 'FAILED', note: 'changed my mind' });
  expect([again.status, again.body.code]).toEqual([400, 'INVALID_STATE']);
  expect(await databaseState(svc.services.db)).toEqual(state);
});

it('resolve-held FAILED returns the hold to the wallet as a failed refund; the decision is the signed-in operator admin’s', async () => {
  const { collection, reference, before } = await heldRefund();
  const adminUser = await createUser(svc, { role: 'operator_admin', totp: true });
  const session = await signedIn(svc, adminUser, clock);
  const data = expectOk(await session.post(`/v1/admin/refunds/${reference}/resolve-held`, { outcome: 'FAILED', note: 'The earlier reversal was of another payment (ticket 88311)' }));
  expect(data).toMatchObject({ transaction_status: 'FAILED', failure_reason: RESOLVED_FAILED_REASON, held_reason: null, resolution: { outcome: 'FAILED', resolved_by: adminUser.email } });
  expect(await journalKinds(reference)).toEqual(['refund_hold', 'refund_return']);
  expect(await balance()).toMatchObject({ balance: before.balance, available_balance: before.available_balance, refund_held_balance: before.refund_held_balance });
  expect(expectOk(await m.client.get(`/v1/collections/${collection}`)).refunded_amount).toBe(0);
  expect(expectOk(await m.client.get(`/v1/refunds/${reference}`))).toMatchObject({ transaction_status: 'FAILED', failure_reason: RESOLVED_FAILED_REASON });
  await eventually(() => hooksFor(hooks.received, reference).some((h) => h.transaction_status === 'FAILED'), 10_000, 'the failure webhook');
  expect(await emailsAbout(reference, 'FAILED')).toBe(1);
  // the merchant's own people see the refund without the operator's side
  const owner = await signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: m.businessId }));
  expect(expectOk(await owner.get(`/v1/admin/refunds?collection_gateway_reference=${collection}`))).toEqual([expect.objectContaining({ gateway_reference: reference, held_reason: null, resolution: null })]);
  expect(expectOk(await owner.get(`/v1/admin/collections/${collection}/refunds`))).toEqual([expect.objectContaining({ gateway_reference: reference, held_reason: null, resolution: null })]);
  expect(expectOk(await session.get(`/v1/admin/collections/${collection}/refunds`))).toEqual([expect.objectContaining({ gateway_reference: reference, resolution: expect.objectContaining({ outcome: 'FAILED', resolved_by: adminUser.email }) })]);
});

it('a held refund takes no late processor answer: a late move or a queued retry leaves it held, nothing is sent again, and resolve-held still moves it once', async () => {
  const { reference, url, before, held } = await heldRefund();
  await quiet(reference);
  const refunds = svc.services.refunds;
  const rowOf = () => svc.services.db.one<{ id: string; status: string; send_state: string; held_reason: string | null; next_send_at: Date | null; next_check_at: Date | null }>(
    'SELECT id, status, send_state, held_reason, next_send_at, next_check_at FROM refunds WHERE gateway_reference = $1', [reference]);
  const heldRow = await rowOf();
  const id = BigInt(heldRow.id);
  await outboxesStill(svc.services.db);
  const state = await databaseState(svc.services.db);

  // (a) late answers through the one state change, as a send's or a query's outcome arrives: no operator's
  // decision, so none moves it (a late "accepted", a late settlement either way)
  expect(await refunds.move(id, { to: 'PROCESSING', nextCheckAt: new Date() })).toBeNull();
  expect(await refunds.move(id, { to: 'COMPLETED' })).toBeNull();
  expect(await refunds.move(id, { to: 'FAILED', failureReason: 'M-Pesa reports the reversal as failed' })).toBeNull();
  expect(await databaseState(svc.services.db)).toEqual(state);

  // (b) a send that was under way when the hold came ends in 'retry': the refund stays held, never queued again
  const reversals = () => [...fake.reversals.values()].filter((x) => x.resultUrl === url).length;
  const sent = reversals();
  const queries = fake.statusQueries.filter((q) => q.resultUrl === url).length;
  await refunds.adapter.record({ id, gateway_reference: reference, pending_reason: null } as never, {
    state: 'queued', nextSendAt: new Date(), nextCheckAt: null, lastError: 'M-Pesa answered 503',
  });
  expect(svc.logs.some((l) => l.includes('late processor answer for a refund held for the operator: ignored') && l.includes(reference))).toBe(true);
  // nothing due (a retry written over the hold would be), nothing under way; then the workers' runs by hand
  await quiet(reference);
  await svc.services.processorRequests.sendDue('refund');
  await svc.services.processorRequests.checkDue('refund');
  expect(reversals()).toBe(sent);
  expect(fake.statusQueries.filter((q) => q.resultUrl === url)).toHaveLength(queries);
  expect(await rowOf()).toEqual(heldRow);
  expect(heldRow).toMatchObject({ status: held.status, send_state: 'held', held_reason: held.held_reason, next_send_at: null, next_check_at: null });
  expect(await balance()).toMatchObject({ available_balance: before.available_balance - 1500, refund_held_balance: before.refund_held_balance + 1500 });
  expect(await databaseState(svc.services.db)).toEqual(state);

  // (c) the operator's decision still moves it, exactly once
  const data = expectOk(await resolve(reference, { outcome: 'FAILED', note: 'M-Pesa support: the earlier reversal was of another payment' }));
  expect(data).toMatchObject({ transaction_status: 'FAILED', failure_reason: RESOLVED_FAILED_REASON, held_reason: null });
  expect(await journalKinds(reference)).toEqual(['refund_hold', 'refund_return']);
  expect(await balance()).toMatchObject({ available_balance: before.available_balance, refund_held_balance: before.refund_held_balance });
  const again = await resolve(reference, { outcome: 'COMPLETED', note: 'again' });
  expect([again.status, again.body.code]).toEqual([400, 'INVALID_STATE']);
  await eventually(() => hooksFor(hooks.received, reference).some((h) => h.transaction_status === 'FAILED'), 10_000, 'the failure webhook');
  expect(hooksFor(hooks.received, reference).filter((h) => h.transaction_status !== 'PROCESSING').map((h) => h.transaction_status)).toEqual(['FAILED']);
});

it('a status query under way when the R000001 Result holds the refund does not un-hold it: its first reason stays, M-Pesa is not asked again', async () => {
  const collection = await reversedOutside();
  fake.holdNextReversal = 1;
  const r = await refund(collection);
  const url = await refundUrl(r.gateway_reference);
  const ours = await eventually(() => [...fake.reversals.values()].find((x) => x.resultUrl === url), 10_000, 'our reversal taken');
  await ended(r.gateway_reference, 'PROCESSING');
  // the next status query reaches M-Pesa and hangs there (the check worker's lease pushes next_check_at out)
  fake.mode = 'hang';
  try {
    await eventually(async () => {
      const { next_check_at: next } = await svc.services.db.one<{ next_check_at: Date | null }>('SELECT next_check_at FROM refunds WHERE gateway_reference = $1', [r.gateway_reference]);
      return next !== null && next.getTime() > clock.now().getTime() + 5000;
    }, 10_000, 'a status query under way');
    // meanwhile the reversal's Result says R000001: held
    fake.finishReversal(ours.originatorConversationId, 'R000001');
    const held = await heldRow(r.gateway_reference);
    expect(held).toMatchObject({ status: 'PROCESSING', held_reason: expect.stringMatching(/^M-Pesa says this payment was already reversed/) });
    // the hung query times out: its outcome comes after the hold (ignored, or written over it)
    await eventually(async () => svc.logs.some((l) => l.includes('late processor answer for a refund held for the operator: ignored') && l.includes(r.gateway_reference))
      || (await svc.services.db.one<{ send_state: string }>('SELECT send_state FROM refunds WHERE gateway_reference = $1', [r.gateway_reference])).send_state !== 'held', 10_000, 'the late outcome');
  } finally {
    fake.mode = 'up';
  }
  const queries = fake.statusQueries.filter((q) => q.resultUrl === url).length;
  // once nothing is due or under way: nothing asked M-Pesa again, nothing re-held it with the query's reason
  await quiet(r.gateway_reference);
  expect(fake.statusQueries.filter((q) => q.resultUrl === url)).toHaveLength(queries);
  expect(await svc.services.db.one('SELECT status, send_state, held_reason, next_send_at, next_check_at FROM refunds WHERE gateway_reference = $1', [r.gateway_reference]))
    .toEqual({ status: 'PROCESSING', send_state: 'held', held_reason: expect.stringMatching(/^M-Pesa says this payment was already reversed/), next_send_at: null, next_check_at: null });
  expectOk(await resolve(r.gateway_reference, { outcome: 'COMPLETED', note: 'M-Pesa support: the customer has the money back' }));
});

it('resolve-held refuses a refund not held, bad input, a merchant owner and operator support, changing nothing', async () => {
  const settled = await refund(await collected());
  await ended(settled.gateway_reference, 'COMPLETED');
  const { reference } = await heldRefund();
  const support = await signedIn(svc, await createUser(svc, { role: 'operator_support', totp: true }), clock);
  const owner = await signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: m.businessId }));
  // a session's last_seen_at moves with every request it makes: everything else must stay as it was
  const stateOf = async () => {
    await outboxesStill(svc.services.db);
    const { user_sessions: _sessions, ...rest } = await databaseState(svc.services.db);
    return rest;
  };
  const state = await stateOf();

  const notHeld = await resolve(settled.gateway_reference, { outcome: 'FAILED', note: 'x' });
  expect([notHeld.status, notHeld.body.code]).toEqual([400, 'INVALID_STATE']);
  const unknown = await resolve('RFNOSUCHREFERENCE0000000', { outcome: 'COMPLETED', note: 'x' });
  expect([unknown.status, unknown.body.code]).toEqual([404, 'NOT_FOUND']);
  const badOutcome = await resolve(reference, { outcome: 'CANCELLED', note: 'x' });
  expect([badOutcome.status, badOutcome.body.code]).toEqual([400, 'VALIDATION_ERROR']);
  expect(errorFields(badOutcome)).toContain('outcome');
  const noNote = await resolve(reference, { outcome: 'COMPLETED', note: '' });
  expect([noNote.status, noNote.body.code]).toEqual([400, 'VALIDATION_ERROR']);
  expect(errorFields(noNote)).toContain('note');
  const extra = await resolve(reference, { outcome: 'COMPLETED', note: 'x', amount: 1500 });
  expect([extra.status, extra.body.code]).toEqual([400, 'VALIDATION_ERROR']);
  for (const who of [support, owner]) {
    const forbidden = await who.post(`/v1/admin/refunds/${reference}/resolve-held`, { outcome: 'COMPLETED', note: 'may not' });
    expect([forbidden.status, forbidden.body.code]).toEqual([403, 'FORBIDDEN']);
  }

  expect(await stateOf()).toEqual(state);
  expect(await svc.services.db.one('SELECT status, send_state FROM refunds WHERE gateway_reference = $1', [reference])).toEqual({ status: 'PROCESSING', send_state: 'held' });
});

it('held=true lists and exports exactly the refunds held for an operator, counted on the overview; a merchant user gets its own only; a bad value is refused', async () => {
  const { reference } = await heldRefund();
  const settled = await refund(await collected());
  await ended(settled.gateway_reference, 'COMPLETED');
  const heldInDb = async () => (await svc.services.db.any<{ gateway_reference: string }>(
    "SELECT gateway_reference FROM refunds WHERE send_state = 'held' ORDER BY created_at DESC, id DESC")).map((r) => r.gateway_reference);
  const expected = await heldInDb();
  expect(expected).toContain(reference);
  const refs = (rows: { gateway_reference: string }[]) => rows.map((r) => r.gateway_reference);

  const listed = expectOk(await svc.admin.get('/v1/admin/refunds?held=true&per_page=100'));
  expect(refs(listed)).toEqual(expected);
  expect(listed.every((r: { held_reason: string | null; transaction_status: string }) => r.held_reason !== null && r.transaction_status === 'PROCESSING')).toBe(true);
  // a page at a time by cursor, with the filter kept
  const first = await svc.admin.get('/v1/admin/refunds?held=true&per_page=1');
  expect([first.status, first.headers.get('x-ph-total')]).toEqual([200, String(expected.length)]);
  expect(refs(first.body.data)).toEqual(expected.slice(0, 1));
  // false or absent: every refund, the settled one too
  const all = refs(expectOk(await svc.admin.get('/v1/admin/refunds?per_page=100')));
  expect(refs(expectOk(await svc.admin.get('/v1/admin/refunds?held=false&per_page=100')))).toEqual(all);
  expect(all).toEqual(expect.arrayContaining([reference, settled.gateway_reference]));
  expect(all.length).toBeGreaterThan(expected.length);
  // the export, by the same filters
  const csv = await svc.admin.get('/v1/admin/exports/refunds?held=true', { headers: { accept: 'text/csv' } });
  expect(csv.status).toBe(200);
  expect(parseCsv(csv.text).map((r) => r.gateway_reference)).toEqual(expected);
  // the overview's count of what waits on an operator
  expect(expectOk(await svc.admin.get('/v1/admin/overview')).attention.held_refunds).toBe(expected.length);
  expect(expectOk(await svc.admin.get(`/v1/admin/overview?business_id=${m.businessId}`)).attention.held_refunds).toBe(expected.length);

  // a merchant user: its own business's held refunds, without the operator's side; another business's user: none
  const owner = await signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: m.businessId }));
  const own = expectOk(await owner.get('/v1/admin/refunds?held=true&per_page=100'));
  expect(refs(own)).toEqual(expected);
  expect(own.every((r: { held_reason: string | null }) => r.held_reason === null)).toBe(true);
  const elsewhere = await createBusiness(svc);
  const stranger = await signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: elsewhere.id }));
  expect(expectOk(await stranger.get('/v1/admin/refunds?held=true'))).toEqual([]);
  expect(expectOk(await svc.admin.get(`/v1/admin/refunds?held=true&business_id=${elsewhere.id}`))).toEqual([]);
  // the merchant API has no such filter (it is the operator API's): refused, not applied or ignored; its records carry no operator's side
  for (const url of ['/v1/refunds?held=true', '/v1/exports/refunds?held=true']) {
    const refused = await m.client.get(url, { headers: { accept: url.includes('exports') ? 'text/csv' : 'application/json' } });
    expect(`${url} ${refused.status} ${refused.body?.code}`).toBe(`${url} 400 VALIDATION_ERROR`);
    expect(errorFields(refused)).toContain('held');
  }
  const merchantListed = expectOk(await m.client.get('/v1/refunds?per_page=100'));
  expect(refs(merchantListed)).toEqual(expect.arrayContaining([reference]));
  for (const r of merchantListed) {
    expect(r).not.toHaveProperty('held_reason');
    expect(r).not.toHaveProperty('resolution');
  }

  // a bad value: refused at the parameter, nothing changes
  const stateOf = async () => {
    await outboxesStill(svc.services.db);
    const { user_sessions: _sessions, ...rest } = await databaseState(svc.services.db);
    return rest;
  };
  const state = await stateOf();
  for (const url of ['/v1/admin/refunds?held=yes', '/v1/admin/refunds?held=1', '/v1/admin/refunds?held=', '/v1/admin/exports/refunds?held=maybe']) {
    const bad = await svc.admin.get(url);
    expect(`${url} ${bad.status} ${bad.body.code}`).toBe(`${url} 400 VALIDATION_ERROR`);
    expect(errorFields(bad)).toContain('held');
  }
  expect(await stateOf()).toEqual(state);
  expect(await heldInDb()).toEqual(expected);
});

it('reads the held refunds (a page of the list, the overview count) through refunds_held_newest, not every refund', async () => {
  // enough settled refunds that a scan would be a choice the planner weighs: copies of one, references made unique
  await svc.services.db.none(`INSERT INTO refunds (business_id, api_token_id, collection_id, wallet_id, gateway_reference, merchant_reference, request_hash,
      amount_minor, currency, account_amount_minor, account_currency, status, message, service_type, mid_id, reference, callback_token, send_state, created_at, updated_at)
    SELECT business_id, api_token_id, collection_id, wallet_id, gateway_reference || '-' || g, merchant_reference || '-' || g, request_hash,
      amount_minor, currency, account_amount_minor, account_currency, 'COMPLETED', message, service_type, mid_id, reference || '-' || g, callback_token || '-' || g, 'settled',
      created_at - g * interval '1 minute', updated_at
    FROM (SELECT * FROM refunds WHERE status = 'COMPLETED' ORDER BY id LIMIT 1) one, generate_series(1, 20000) g`);
  await svc.services.db.none('ANALYZE refunds');
  const indexesOnRefunds = async (sql: string) => {
    const [{ 'QUERY PLAN': plan }] = await svc.services.db.any(`EXPLAIN (FORMAT JSON) ${sql}`);
    const found: [string, string | undefined][] = [];
    const walk = (n: { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: unknown[] }) => {
      if (n['Relation Name'] === 'refunds') found.push([n['Node Type'], n['Index Name']]);
      (n.Plans ?? []).forEach((p) => walk(p as typeof n));
    };
    walk(plan[0].Plan);
    return found;
  };
  const list = `SELECT r.*, c.gateway_reference FROM refunds r JOIN collections c ON c.id = r.collection_id WHERE ${refundWhere({ held: true }).text} ORDER BY r.created_at DESC, r.id DESC LIMIT 21`;
  expect(await indexesOnRefunds(list)).toEqual([[expect.stringMatching(/^Index (Only )?Scan$/), 'refunds_held_newest']]);
  const count = "SELECT count(*) FROM refunds r WHERE r.send_state = 'held' AND (NULL::int IS NULL OR r.business_id = NULL::int)";
  expect(await indexesOnRefunds(count)).toEqual([[expect.stringMatching(/^Index (Only )?Scan$/), 'refunds_held_newest']]);
  // and the answer is still exactly the held ones
  const held = (await svc.services.db.any<{ gateway_reference: string }>("SELECT gateway_reference FROM refunds WHERE send_state = 'held' ORDER BY created_at DESC, id DESC")).map((r) => r.gateway_reference);
  expect(expectOk(await svc.admin.get('/v1/admin/refunds?held=true&per_page=100')).map((r: { gateway_reference: string }) => r.gateway_reference)).toEqual(held);
});
