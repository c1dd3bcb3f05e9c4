// Proves submitDisputeEvidence (docs/contract/disputes.md, "The merchant responds") against the fake Paystack
// over real HTTP: bad input and a dispute that cannot be contested are refused with nothing sent and nothing
// changed; evidence is posted, the file PUT to the signed upload URL over a real socket and the dispute
// declined with nothing refunded, so it is under review; the bank then rules for the merchant
// (charge.dispute.resolve): won, the hold released by exactly one journal, the merchant told each step, and
// the ledger sound; the wallet's dispute_held_balance shows the hold while it is open. Without a file the message goes up as the file.
import { ledgerDrift } from '../../src/ledger/ledger';
import type { HostedWorld } from '../helpers/hosted';
import { walletOf } from '../helpers/hosted-refunds';
import { cardPaid, disputeIn, disputeWebhooks, startDisputeWorld } from '../helpers/hosted-disputes';

let w: HostedWorld;

beforeAll(async () => {
  w = await startDisputeWorld();
}, 180_000);

afterAll(() => w?.close());

const db = () => w.svc.services.db;
const PDF = Buffer.from('%PDF-1.4\n%delivery note signed by the customer\n%%EOF\n', 'utf8');
const EVIDENCE = {
  customer_email: 'chinedu.eze@example.com', customer_name: 'Chinedu Eze', customer_phone: '2348012345678',
  service_details: 'Two textbooks, collected at the Marina shop', delivery_address: '3 Marina, Lagos', delivery_date: '2025-11-24',
  message: 'The customer collected the books in person and signed for them',
};

/** The fake's API calls about a dispute, but its reads (the file's PUT to the signed URL is kept in its uploads). */
const callsOf = (id: number) => w.paystack.calls.filter((c) => c.path.startsWith(`/dispute/${id}/`)).map((c) => `${c.method} ${c.path.replace(/\?.*$/, '')}`);

async function releases(disputeId: bigint) {
  return db().any<{ kind: string; account: string; amount: string }>(
    `SELECT j.kind, a.kind AS account, SUM(p.amount_minor)::text AS amount FROM journals j JOIN postings p ON p.journal_id = j.id JOIN ledger_accounts a ON a.id = p.account_id
     WHERE j.dispute_id = $1 AND j.kind <> 'dispute_hold' GROUP BY j.id, j.kind, a.kind ORDER BY j.id, a.kind`,
    [disputeId],
  );
}

it('evidence with a file: declined at Paystack and under review; the bank rules for the merchant: won, the hold released once, each step told', async () => {
  const { tx } = await cardPaid(w);
  const before = await walletOf(w, 'NGN');
  const d = w.paystack.disputes.open(tx);
  const row = await disputeIn(w, d.id, 'needs_response');
  const submit = (body: unknown) => w.client.post(`/v1/disputes/${row.gateway_reference}/evidence`, body);
  const file = { name: 'delivery-note.pdf', content_type: 'application/pdf', content: PDF.toString('base64') };

  // bad input: refused, nothing sent, nothing changed
  const { customer_phone: _phone, ...noPhone } = EVIDENCE;
  for (const bad of [
    noPhone,
    { ...EVIDENCE, customer_email: 'not an address' },
    { ...EVIDENCE, delivery_date: '2025-02-30' },
    { ...EVIDENCE, file: { ...file, content: 'not base64!' } },
    { ...EVIDENCE, file: { ...file, content: Buffer.alloc(40 * 1024 + 1).toString('base64') } },
    { ...EVIDENCE, file: { ...file, content_type: 'application/zip' } },
  ]) {
    const r = await submit(bad);
    expect([r.status, r.body.code]).toEqual([400, 'VALIDATION_ERROR']);
  }
  const unknown = await w.client.post('/v1/disputes/DSP0000000000000000000/evidence', EVIDENCE);
  expect([unknown.status, unknown.body.code]).toEqual([404, 'NOT_FOUND']);
  expect(callsOf(d.id)).toEqual([]);
  expect(await disputeIn(w, d.id, 'needs_response')).toMatchObject({ evidence: null });

  const done = await submit({ ...EVIDENCE, file });
  expect(done.status).toBe(200);
  expect(done.body.data).toMatchObject({ gateway_reference: row.gateway_reference, status: 'under_review', resolution: 'declined', held_amount: 25000, debited_amount: null, closed_at: null });
  // evidence, then the upload URL (the file PUT to it), then resolve declined naming the uploaded file (the fake refuses a name not uploaded)
  expect(callsOf(d.id)).toEqual([`POST /dispute/${d.id}/evidence`, `GET /dispute/${d.id}/upload_url`, `PUT /dispute/${d.id}/resolve`]);
  const { message, ...fields } = EVIDENCE;
  expect(w.paystack.disputes.evidence.get(d.id)).toMatchObject(fields);
  const resolve = w.paystack.calls.find((c) => c.method === 'PUT' && c.path === `/dispute/${d.id}/resolve`)!.body as Record<string, string>;
  expect(resolve).toMatchObject({ resolution: 'declined', message, refund_amount: '0' });
  expect(resolve.uploaded_filename).toMatch(/delivery-note\.pdf$/);
  expect(w.paystack.disputes.uploads.get(resolve.uploaded_filename)).toBe(PDF.toString('utf8'));
  expect((await disputeIn(w, d.id, 'under_review')).evidence).toMatchObject({ ...fields, message, file: { name: 'delivery-note.pdf', content_type: 'application/pdf', bytes: PDF.length } });
  // the balance reads show what the open dispute holds, apart from the balance
  expect(before.dispute_held_balance).toBe(0);
  expect(await walletOf(w, 'NGN')).toMatchObject({ available_balance: before.available_balance - 25000, balance: before.balance - 25000, dispute_held_balance: 25000 });
  const listed = (await w.client.get('/v1/data/wallets/balances')).body.data.find((b: { currency: string }) => b.currency === 'NGN');
  expect(listed).toMatchObject({ dispute_held_balance: 25000 });

  // contested already: a second submission is refused, nothing more sent
  const again = await submit(EVIDENCE);
  expect([again.status, again.body.code]).toEqual([400, 'INVALID_STATE']);
  expect(callsOf(d.id)).toHaveLength(3);

  w.paystack.disputes.bankDecides(d.id, true);
  await disputeIn(w, d.id, 'won');
  w.paystack.disputes.resend(d.id, 'charge.dispute.resolve');
  await w.paystack.deliveriesDone();
  await w.svc.services.disputes.poll();
  expect(await releases(row.id)).toEqual([
    { kind: 'dispute_release', account: 'available', amount: '2500000' },
    { kind: 'dispute_release', account: 'dispute_hold', amount: '-2500000' },
  ]);
  expect(await walletOf(w, 'NGN')).toMatchObject({ available_balance: before.available_balance, balance: before.balance, dispute_held_balance: 0 });
  const told = (await disputeWebhooks(w, row.gateway_reference)).map((r) => JSON.parse(r.body));
  expect(told.map((b) => [b.sequence, b.event, b.status])).toEqual([
    [1, 'dispute.opened', 'needs_response'],
    [2, 'dispute.status_changed', 'under_review'],
    [3, 'dispute.status_changed', 'won'],
  ]);
  expect(await ledgerDrift(db())).toEqual([]);
}, 60_000);

it('without a file the message goes up as the file; past its deadline a dispute is refused and nothing is sent', async () => {
  const { tx } = await cardPaid(w);
  const d = w.paystack.disputes.open(tx);
  const row = await disputeIn(w, d.id, 'needs_response');
  const { delivery_address: _a, delivery_date: _d, ...required } = EVIDENCE;
  const done = await w.client.post(`/v1/disputes/${row.gateway_reference}/evidence`, required);
  expect([done.status, done.body.data.status]).toEqual([200, 'under_review']);
  const resolve = w.paystack.calls.find((c) => c.method === 'PUT' && c.path === `/dispute/${d.id}/resolve`)!.body as Record<string, string>;
  expect(resolve.uploaded_filename).toMatch(new RegExp(`evidence-${row.gateway_reference}\\.txt$`));
  expect(w.paystack.disputes.uploads.get(resolve.uploaded_filename)).toBe(EVIDENCE.message);

  const { tx: late } = await cardPaid(w);
  const l = w.paystack.disputes.open(late);
  const lateRow = await disputeIn(w, l.id, 'needs_response');
  // its deadline is behind us (the service's clock is the real one: the row says so instead)
  await db().none("UPDATE disputes SET deadline_at = now() - interval '1 minute' WHERE id = $1", [lateRow.id]);
  const refused = await w.client.post(`/v1/disputes/${lateRow.gateway_reference}/evidence`, EVIDENCE);
  expect([refused.status, refused.body.code]).toEqual([400, 'INVALID_STATE']);
  expect(refused.body.message).toContain('deadline');
  expect(callsOf(l.id)).toEqual([]);
  expect(await disputeIn(w, l.id, 'needs_response')).toMatchObject({ evidence: null });
}, 60_000);
