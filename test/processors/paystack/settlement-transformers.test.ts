// Proves the reading of Paystack's settlement answers: only a `success` settlement is paid out; a
// transaction's time from paid_at or paidAt; a transaction not `success` passed over; a page with one
// unreadable transaction unreadable as a whole; the pages' meta read for `more`; any other answer unreadable.
import { readSettlementList, readSettlementTransactions } from '../../../src/processors/paystack/settlement-transformers';

const tx = (o: Record<string, unknown> = {}) => ({ id: 41, reference: 'PCABC', amount: 2_500_000, currency: 'NGN', status: 'success', paid_at: '2026-11-30T10:00:00.000Z', fees: 37500, ...o });

it('reads settlements: paid out only when success, its day, the next page', () => {
  const a = readSettlementList(200, {
    status: true,
    data: [
      { id: 3068203, status: 'success', currency: 'NGN', settlement_date: '2026-12-01T00:00:00.000Z', total_amount: 100 },
      { id: '3068204', status: 'processing', currency: 'NGN', settlement_date: '2026-12-02T00:00:00.000Z' },
      { id: 'x', status: 'success', currency: 'NGN' },
    ],
    meta: { page: 1, pageCount: 2 },
  });
  expect(a).toEqual({
    kind: 'listed', unreadable: 1, more: true,
    settlements: [
      { id: '3068203', settled: true, currency: 'NGN', settledAt: new Date('2026-12-01T00:00:00.000Z') },
      { id: '3068204', settled: false, currency: 'NGN', settledAt: new Date('2026-12-02T00:00:00.000Z') },
    ],
  });
  expect(readSettlementList(401, { status: false, message: 'Invalid key' })).toEqual({ kind: 'unreadable', detail: 'settlement list answered HTTP 401' });
});

it("reads a settlement's transactions: the amount before the fee, paid_at or paidAt, failed ones passed over", () => {
  const { paid_at: _paid, ...noPaidAt } = tx({ reference: 'PCDEF.2', paidAt: '2026-11-30T11:00:00.000Z' });
  const a = readSettlementTransactions(200, { status: true, data: [tx(), noPaidAt, tx({ reference: 'PCGHI', status: 'failed' })], meta: { page: 2, pageCount: 2 } });
  expect(a).toEqual({
    kind: 'listed', more: false,
    payments: [
      { reference: 'PCABC', amountMinor: 2_500_000n, currency: 'NGN', occurredAt: new Date('2026-11-30T10:00:00.000Z') },
      { reference: 'PCDEF.2', amountMinor: 2_500_000n, currency: 'NGN', occurredAt: new Date('2026-11-30T11:00:00.000Z') },
    ],
  });
});

it('makes a page with a transaction it cannot read unreadable as a whole', () => {
  for (const bad of [tx({ reference: null }), tx({ amount: '25000' }), tx({ currency: 'naira' }), tx({ paid_at: 'yesterday' })]) {
    expect(readSettlementTransactions(200, { status: true, data: [tx(), bad], meta: { page: 1, pageCount: 1 } })).toEqual({ kind: 'unreadable', detail: 'settlement transaction 2 of the page cannot be read' });
  }
  expect(readSettlementTransactions(404, { status: false, message: 'Settlement not found' }).kind).toBe('unreadable');
});
