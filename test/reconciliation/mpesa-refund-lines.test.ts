// Proves that an M-Pesa statement's reversal of a payment we refunded is our refund, not the operator's
// reversal, against the fake Daraja over real sockets: one payment refunded through the public API (the
// Reversal API), another reversed by the operator; the statement words both rows alike (a Withdrawn
// Reversal naming the payment's receipt); intake matches the first with our refund (line_kind refund, never
// reversed_externally, so it can never be reversed a second time) and finds the second reversed_externally;
// the same file again creates nothing.
import { mpesaStatement } from '../fakes/mpesa-statement';
import { collectedKes, mpesaRefunds } from '../helpers/mpesa-refunds';
import type { MpesaRefunds } from '../helpers/mpesa-refunds';
import { expectOk } from '../helpers/merchants';
import { eventually } from '../helpers/notify-fixtures';
import { Clock } from '../helpers/users';

const clock = new Clock();
let live: MpesaRefunds;
let refunded: string;
let refund: string;
let reversed: string;

const receiptOf = async (gatewayReference: string) =>
  (await live.svc.services.db.one<{ receipt: string }>('SELECT pr.receipt FROM processor_requests pr JOIN collections c ON c.id = pr.collection_id WHERE c.gateway_reference = $1', [gatewayReference])).receipt;

beforeAll(async () => {
  live = await mpesaRefunds(clock);
  refunded = await collectedKes(live.m, `RECOUT-${process.pid}-1`, '254708374111');
  reversed = await collectedKes(live.m, `RECOUT-${process.pid}-2`, '254708374112');
  refund = expectOk(await live.m.client.post(`/v1/collections/${refunded}/refunds`, { merchant_reference: `RECOUT-RFD-${process.pid}`, reason: 'Order cancelled' })).gateway_reference;
  await eventually(async () => expectOk(await live.m.client.get(`/v1/refunds/${refund}`)).transaction_status === 'COMPLETED', 15_000, 'refunded');
}, 120_000);
afterAll(async () => {
  await live?.close();
});

it('matches the reversal of a payment we refunded with our refund, and finds the operator\'s own reversal; the same file twice creates nothing', async () => {
  const [refundedReceipt, reversedReceipt] = [await receiptOf(refunded), await receiptOf(reversed)];
  const ours = [...live.fake.reversals.values()].find((v) => v.transactionId === refundedReceipt)!;
  expect(ours).toMatchObject({ resultCode: '0', amount: 1500 });
  const text = mpesaStatement(live.fake, { refunds: true, reverse: new Set([reversedReceipt]) });
  const upload = () => live.svc.admin.post(`/v1/admin/mids/${live.m.midId}/statements`, undefined, { raw: text, headers: { 'content-type': 'text/csv' } });
  expect(expectOk(await upload())).toMatchObject({ created: true, statement: { line_count: 4 } });
  const items = expectOk(await live.svc.admin.get(`/v1/admin/mids/${live.m.midId}/reconciliation-items?limit=500`)).items as Record<string, unknown>[];
  const of = (reference: string) => items.find((i) => i.reference === reference);
  expect(items).toHaveLength(4);
  expect(of(ours.receipt!)).toMatchObject({ state: 'matched', line_kind: 'refund', subject: 'refund', subject_reference: refund, gateway_reference: null, ours_amount: 1500, theirs_amount: 1500 });
  expect(items.find((i) => i.state === 'reversed_externally')).toMatchObject({ line_kind: 'reversal', subject: 'collection', subject_reference: reversed, gateway_reference: reversed });
  expect(items.filter((i) => i.state === 'matched' && i.line_kind === 'payment').map((i) => i.reference).sort()).toEqual([refundedReceipt, reversedReceipt].sort());
  expect(expectOk(await upload()).created).toBe(false);
  expect(expectOk(await live.svc.admin.get(`/v1/admin/mids/${live.m.midId}/reconciliation-items?limit=500`)).items).toEqual(items);
});
