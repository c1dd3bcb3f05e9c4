// Proves card disputes from Paystack (and the merchant's listDisputes, getDispute and acceptDispute) against the project's fake Paystack over real HTTP: a signed charge.dispute.* event is a prompt (the dispute is fetched and recorded with its deadline, its hold taken from available, the merchant e-mailed); a declined dispute is learnt by the poll, then won when the bank decides (hold released); an unanswered one accepted at its deadline is debited exactly once however many prompts arrive together; a forged event changes nothing and a redelivered one nothing more; a refund of a disputed payment is refused, and a dispute and a refund at once leave the ledger sound; in the dashboard only the business's owners accept (acceptAdminDispute), audited.
import { ledgerDrift } from '../../src/ledger/ledger';
import { signature } from '../../src/processors/paystack/transformers';
import { startHostedWorld } from '../helpers/hosted';
import { Clock, createUser, signedIn } from '../helpers/users';
import { cardPaid, disputeIn } from '../helpers/hosted-disputes';
import type { DisputeRow } from '../helpers/hosted-disputes';
import type { HostedWorld } from '../helpers/hosted';
import { refundIn, walletOf } from '../helpers/hosted-refunds';

let w: HostedWorld;
const clock = new Clock();

beforeAll(async () => {
  w = await startHostedWorld({ PROCESSOR_CHECK_SCHEDULE: '10m' });
  // the merchant asked for merchant e-mails: a dispute opened is one of them
  await w.svc.services.db.none('UPDATE api_tokens SET email_merchant = true WHERE business_id = $1', [w.businessId]);
}, 180_000);

afterAll(() => w?.close());

const db = () => w.svc.services.db;

type Row = DisputeRow;

const disputeOf = (processorId: number) => db().oneOrNone<Row>('SELECT * FROM disputes WHERE processor_dispute_id = $1', [String(processorId)]);
const inStatus = (processorId: number, status: string) => disputeIn(w, processorId, status);

/** The dispute's journals: kind and the net on each wallet account. */
async function journals(processorId: number) {
  return db().any<{ kind: string; account: string; amount: string }>(
    `SELECT j.kind, a.kind AS account, SUM(p.amount_minor)::text AS amount FROM journals j JOIN disputes d ON d.id = j.dispute_id
     JOIN postings p ON p.journal_id = j.id JOIN ledger_accounts a ON a.id = p.account_id
     WHERE d.processor_dispute_id = $1 GROUP BY j.id, j.kind, a.kind ORDER BY j.id, a.kind`,
    [String(processorId)],
  );
}

const hook = (raw: string, key: string) =>
  w.svc.anon.post(`/callbacks/paystack/mids/${w.mids.card}`, undefined, { raw, headers: { 'content-type': 'application/json', 'x-paystack-signature': signature(Buffer.from(raw), key) } });

it('an event opens the dispute with its deadline and hold; a refund is refused; declined with evidence, then won: the hold is released', async () => {
  const { collection, tx } = await cardPaid(w);
  const before = await walletOf(w, 'NGN');
  const d = w.paystack.disputes.open(tx);
  const row = await inStatus(d.id, 'needs_response');
  expect(row).toMatchObject({ stage: 'chargeback', processor_status: 'awaiting-merchant-feedback', amount_minor: 2_500_000n, held_minor: 2_500_000n, refunded_minor: 0n, debited_minor: null });
  // Nigeria: 16 running hours from the dispute's own time unless a weekend pause falls inside
  expect(row!.deadline_at.getTime() - row!.opened_at.getTime()).toBeGreaterThanOrEqual(16 * 3_600_000);
  expect(row!.opened_at.toISOString()).toBe(d.createdAt);
  // the event was only a prompt: the dispute was fetched
  expect(w.paystack.calls.filter((c) => c.method === 'GET' && c.path === `/dispute/${d.id}`).length).toBeGreaterThanOrEqual(1);
  expect(await walletOf(w, 'NGN')).toMatchObject({ available_balance: before.available_balance - 25000 });
  expect(await journals(d.id)).toEqual([
    { kind: 'dispute_hold', account: 'available', amount: '-2500000' },
    { kind: 'dispute_hold', account: 'dispute_hold', amount: '2500000' },
  ]);
  const mail = await db().any<{ recipient: string; subject: string; text_body: string }>('SELECT recipient, subject, text_body FROM emails WHERE subject LIKE $1', [`Dispute ${row!.gateway_reference}%`]);
  expect(mail).toHaveLength(1);
  expect(mail[0]).toMatchObject({ recipient: 'payments@lagosbooks.example' });
  expect(mail[0].text_body).toContain(collection);
  const read = await w.client.get(`/v1/disputes/${row!.gateway_reference}`);
  expect(read.status).toBe(200);
  expect(read.body.data).toEqual({
    gateway_reference: row!.gateway_reference, collection_gateway_reference: collection, stage: 'chargeback', status: 'needs_response',
    reason: 'Customer does not recognise the transaction', amount: 25000, currency: 'NGN', held_amount: 25000, debited_amount: null, refunded_amount: 0,
    account_currency: 'NGN', deadline: row!.deadline_at.toISOString().slice(0, 19) + 'Z', resolution: null, opened_at: d.createdAt.slice(0, 19) + 'Z', closed_at: null,
  });
  const listed = await w.client.get('/v1/disputes?status=needs_response&per_page=1');
  expect(listed.status).toBe(200);
  expect(listed.body.data).toEqual([read.body.data]);
  expect((await w.client.get('/v1/disputes?status=won')).body.data.map((x: { gateway_reference: string }) => x.gateway_reference)).not.toContain(row!.gateway_reference);
  expect((await w.client.get('/v1/disputes?status=open')).body.code).toBe('VALIDATION_ERROR');
  const unknown = await w.client.get('/v1/disputes/DSP0000000000000000000');
  expect([unknown.status, unknown.body.code]).toEqual([404, 'NOT_FOUND']);

  const refused = await w.client.post(`/v1/collections/${collection}/refunds`, { merchant_reference: `RFD-DSP-${process.pid}-1` });
  expect(refused.status).toBe(400);
  expect(refused.body.code).toBe('INVALID_STATE');
  expect(refused.body.message).toContain(row!.gateway_reference);
  expect((await db().one<{ n: number }>('SELECT count(*)::int AS n FROM refunds r JOIN collections c ON c.id = r.collection_id WHERE c.gateway_reference = $1', [collection])).n).toBe(0);

  // declined with evidence at Paystack: no event until the bank decides; the poll sees it under review
  w.paystack.disputes.contest(d.id);
  await w.svc.services.disputes.poll();
  expect(await disputeOf(d.id)).toMatchObject({ status: 'under_review', processor_status: 'awaiting-bank-feedback', resolution: 'declined' });

  w.paystack.disputes.bankDecides(d.id, true);
  expect(await inStatus(d.id, 'won')).toMatchObject({ debited_minor: 0n, processor_status: 'resolved', resolution: 'declined' });
  expect(await walletOf(w, 'NGN')).toMatchObject({ available_balance: before.available_balance, balance: before.balance });
  expect((await journals(d.id)).map((j) => j.kind)).toEqual(['dispute_hold', 'dispute_hold', 'dispute_release', 'dispute_release']);
  expect((await w.client.get(`/v1/disputes/${row!.gateway_reference}`)).body.data).toMatchObject({ status: 'won', debited_amount: 0, resolution: 'declined' });
  expect(await ledgerDrift(db())).toEqual([]);
}, 60_000);

it('no answer: accepted at the deadline and debited exactly once, however many prompts arrive at once; a redelivered event changes nothing', async () => {
  const { tx } = await cardPaid(w);
  const before = await walletOf(w, 'NGN');
  const d = w.paystack.disputes.open(tx, { category: 'fraud' });
  await inStatus(d.id, 'needs_response');
  w.paystack.disputes.expire(d.id);
  // the resolve event, two redeliveries and a poll, all at once
  w.paystack.disputes.resend(d.id, 'charge.dispute.resolve');
  w.paystack.disputes.resend(d.id, 'charge.dispute.resolve');
  await w.svc.services.disputes.poll();
  const row = await inStatus(d.id, 'accepted');
  await w.paystack.deliveriesDone();
  expect(row).toMatchObject({ stage: 'fraud', debited_minor: 2_500_000n, resolution: 'merchant-accepted' });
  expect((await journals(d.id)).filter((j) => j.kind === 'dispute_debit')).toEqual([
    { kind: 'dispute_debit', account: 'dispute_hold', amount: '-2500000' },
    { kind: 'dispute_debit', account: 'processor_clearing', amount: '2500000' },
  ]);
  expect(await walletOf(w, 'NGN')).toMatchObject({ available_balance: before.available_balance - 25000, balance: before.balance - 25000 });
  const settled = await disputeOf(d.id);
  w.paystack.disputes.resend(d.id, 'charge.dispute.resolve');
  await w.paystack.deliveriesDone();
  expect(await disputeOf(d.id)).toEqual(settled);
  expect(await journals(d.id)).toHaveLength(4);
  expect(await ledgerDrift(db())).toEqual([]);
}, 60_000);

it('a forged dispute event is refused and changes nothing; the same event signed with the key is recorded', async () => {
  const { tx } = await cardPaid(w);
  const url = w.paystack.webhookUrl;
  w.paystack.webhookUrl = null; // the dispute opens at Paystack with its event held back
  const d = w.paystack.disputes.open(tx);
  w.paystack.webhookUrl = url;
  const body = JSON.stringify({ event: 'charge.dispute.create', data: { ...w.paystack.disputes.apiView(d) } });
  const fetches = () => w.paystack.calls.filter((c) => c.path === `/dispute/${d.id}`).length;
  expect((await hook(body, 'sk_test_someone_else_0000')).status).toBe(401);
  expect(await disputeOf(d.id)).toBeNull();
  expect(fetches()).toBe(0);
  expect((await hook(body, w.paystack.secretKey)).status).toBe(200);
  expect(await disputeOf(d.id)).toMatchObject({ status: 'needs_response' });
  expect(fetches()).toBe(1);
}, 60_000);

it('a dispute and a refund of one payment at once: one of them waits for the other, and the ledger stays sound', async () => {
  const { collection, tx } = await cardPaid(w);
  const refund = w.client.post(`/v1/collections/${collection}/refunds`, { merchant_reference: `RFD-DSP-${process.pid}-2`, amount: 10000 });
  const d = w.paystack.disputes.open(tx);
  const refunded = await refund;
  const row = await inStatus(d.id, 'needs_response');
  if (refunded.status === 201 || refunded.status === 200) {
    // the refund came first: the dispute records what was already returned; the refund goes on to its end
    expect(row.refunded_minor).toBe(1_000_000n);
    await refundIn(w, refunded.body.data.gateway_reference, 'COMPLETED');
  } else {
    expect(refunded.body.code).toBe('INVALID_STATE');
    expect(row.refunded_minor).toBe(0n);
  }
  expect(await ledgerDrift(db())).toEqual([]);
}, 60_000);

it('acceptDispute: bad input changes nothing; a partial acceptance is passed on (the message uploaded, then resolve) and debits only its part; a second is refused', async () => {
  const { tx } = await cardPaid(w);
  const before = await walletOf(w, 'NGN');
  const d = w.paystack.disputes.open(tx);
  const row = await inStatus(d.id, 'needs_response');
  const accept = (body: unknown) => w.client.post(`/v1/disputes/${row.gateway_reference}/accept`, body);
  const resolves = () => w.paystack.calls.filter((c) => c.method === 'PUT' && c.path === `/dispute/${d.id}/resolve`);

  for (const bad of [{ message: 'x', amount: 30000 }, { message: 'x', amount: 0 }, {}, { message: '' }]) {
    expect((await accept(bad)).body.code).toBe('VALIDATION_ERROR');
  }
  expect([(await w.client.post('/v1/disputes/DSP0000000000000000000/accept', { message: 'x' })).status]).toEqual([404]);
  expect(resolves()).toEqual([]);
  expect(await disputeOf(d.id)).toMatchObject({ status: 'needs_response', debited_minor: null });

  const done = await accept({ amount: 10000, message: 'Part of the order was never delivered' });
  expect(done.status).toBe(200);
  expect(done.body.data).toMatchObject({ status: 'accepted', resolution: 'merchant-accepted', held_amount: 25000, debited_amount: 10000 });
  const [call] = resolves();
  const sent = call.body as { uploaded_filename: string; refund_amount: string; resolution: string; message: string };
  expect(sent).toMatchObject({ resolution: 'merchant-accepted', refund_amount: '1000000', message: 'Part of the order was never delivered' });
  expect(w.paystack.disputes.uploads.get(sent.uploaded_filename)).toBe('Part of the order was never delivered');
  await w.paystack.deliveriesDone();
  expect(await walletOf(w, 'NGN')).toMatchObject({ available_balance: before.available_balance - 10000, balance: before.balance - 10000 });
  expect((await journals(d.id)).filter((j) => j.kind === 'dispute_debit')).toEqual([
    { kind: 'dispute_debit', account: 'available', amount: '1500000' },
    { kind: 'dispute_debit', account: 'dispute_hold', amount: '-2500000' },
    { kind: 'dispute_debit', account: 'processor_clearing', amount: '1000000' },
  ]);

  const again = await accept({ message: 'again' });
  expect([again.status, again.body.code]).toEqual([400, 'INVALID_STATE']);
  expect(resolves()).toHaveLength(1);
  expect(await ledgerDrift(db())).toEqual([]);
}, 60_000);

it('a dispute still needing an answer is reminded once when its deadline is within four hours, never before', async () => {
  const { tx } = await cardPaid(w);
  const d = w.paystack.disputes.open(tx);
  const row = await inStatus(d.id, 'needs_response');
  const reminders = () => db().any<{ subject: string }>('SELECT subject FROM emails WHERE subject LIKE $1', [`Reminder: dispute ${row.gateway_reference}%`]);
  const deadline = row.deadline_at.getTime();
  await w.svc.services.disputes.remind(new Date(deadline - 5 * 3_600_000));
  expect(await reminders()).toEqual([]);
  await w.svc.services.disputes.remind(new Date(deadline - 3_600_000));
  await w.svc.services.disputes.remind(new Date(deadline - 1_800_000));
  expect(await reminders()).toHaveLength(1);
}, 60_000);

it("acceptAdminDispute: only the business's owners accept in the dashboard; developers, viewers, operators and the operator key are refused and Paystack is told nothing", async () => {
  const { tx } = await cardPaid(w);
  const d = w.paystack.disputes.open(tx);
  const row = await inStatus(d.id, 'needs_response');
  const path = `/v1/admin/disputes/${row.gateway_reference}/accept`;
  const body = { message: 'We accept' };
  const resolves = () => w.paystack.calls.filter((c) => c.path === `/dispute/${d.id}/resolve`).length;
  for (const role of ['merchant_developer', 'merchant_viewer'] as const) {
    const person = await signedIn(w.svc, await createUser(w.svc, { role, business_id: w.businessId }), clock);
    expect([role, (await person.post(path, body)).status]).toEqual([role, 403]);
  }
  const operator = await signedIn(w.svc, await createUser(w.svc, { role: 'operator_admin', totp: true }), clock);
  expect((await operator.post(path, body)).body.code).toBe('FORBIDDEN');
  expect((await w.svc.admin.post(path, body)).body.code).toBe('FORBIDDEN');
  const stranger = await w.svc.admin.post('/v1/admin/businesses', { name: 'Abuja Shoes', default_currency: 'NGN' });
  const otherOwner = await signedIn(w.svc, await createUser(w.svc, { role: 'merchant_owner', business_id: stranger.body.data.id }), clock);
  expect((await otherOwner.post(path, body)).status).toBe(404);
  expect(resolves()).toBe(0);
  expect(await disputeOf(d.id)).toMatchObject({ status: 'needs_response', debited_minor: null });

  const owner = await signedIn(w.svc, await createUser(w.svc, { role: 'merchant_owner', business_id: w.businessId }), clock);
  expect((await owner.post(path, { amount: 0, message: 'x' })).body.code).toBe('VALIDATION_ERROR');
  expect(resolves()).toBe(0);
  const done = await owner.post(path, body);
  expect(done.status).toBe(200);
  expect(done.body.data).toMatchObject({ gateway_reference: row.gateway_reference, business_id: w.businessId, status: 'accepted', debited_amount: 25000 });
  expect(resolves()).toBe(1);
  const entry = await db().one("SELECT business_id, after FROM audit_log WHERE action = 'acceptAdminDispute' ORDER BY id DESC LIMIT 1");
  expect([entry.business_id, entry.after.status]).toEqual([w.businessId, 'accepted']);
}, 60_000);
