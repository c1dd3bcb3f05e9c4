// Proves how Paystack's disputes are read (docs/contract/disputes.md): an answer's object and a list's items by one reader, an event only for its dispute id (its dates named otherwise), the status, resolution and refund_amount read together to say who won, the disputed amount taken from the transaction while the dispute's own is empty, and anything unreadable left unread rather than guessed.
import { disputeEventId, readDispute, readDisputeFetch, readDisputeList, readEvidence } from '../../../src/processors/paystack/dispute-transformers';

/** A dispute as GET /dispute/:id answers it (Paystack's API reference, Disputes: fetch's sample, trimmed). */
const answer = (o: Record<string, unknown> = {}) => ({
  id: 2867, refund_amount: null, currency: null, status: 'awaiting-merchant-feedback', resolution: null, domain: 'test',
  transaction: { id: 5991760, reference: 'PCD4Q38UJREMYY4NQVTDQA', amount: 2_500_000, currency: 'NGN', status: 'success' },
  transaction_reference: null, category: 'chargeback', note: 'Customer does not recognise the transaction',
  createdAt: '2026-12-04T19:00:00.000Z', updatedAt: '2026-12-04T19:00:00.000Z', ...o,
});

test('an open dispute: the amount and currency are the transaction\'s while the dispute\'s own are null', () => {
  expect(readDispute(answer())).toEqual({
    processorDisputeId: '2867', transactionReference: 'PCD4Q38UJREMYY4NQVTDQA', stage: 'chargeback', status: 'needs_response',
    processorStatus: 'awaiting-merchant-feedback', reason: 'Customer does not recognise the transaction', amountMinor: 2_500_000n, currency: 'NGN',
    debitMinor: 2_500_000n, resolution: null, openedAt: new Date('2026-12-04T19:00:00Z'),
  });
});

test.each([
  // status, resolution, refund_amount -> ours, debited
  ['awaiting-bank-feedback', 'declined', null, 'under_review', 2_500_000n],
  ['pending', null, null, 'under_review', 2_500_000n],
  ['resolved', 'declined', 0, 'won', 0n],
  ['resolved', 'declined', null, 'won', 0n],
  ['resolved', 'declined', 2_500_000, 'lost', 2_500_000n],
  ['resolved', 'merchant-accepted', 2_500_000, 'accepted', 2_500_000n],
  ['resolved', 'merchant-accepted', '1000000', 'accepted', 1_000_000n],
  ['resolved', 'auto-accepted', null, 'accepted', 2_500_000n],
  ['archived', null, null, 'won', 0n],
])('status %s, resolution %s, refund_amount %s is %s, debiting %s', (status, resolution, refund, ours, debit) => {
  expect(readDispute(answer({ status, resolution, refund_amount: refund, currency: status === 'resolved' ? 'NGN' : null }))).toMatchObject({ status: ours, debitMinor: debit });
});

test('resolution alone does not decide: resolved without a resolution, or an unknown status, is left unread', () => {
  expect(readDispute(answer({ status: 'resolved', resolution: null }))).toBeNull();
  expect(readDispute(answer({ status: 'being-looked-at' }))).toBeNull();
});

test('stages: fraud is its own; a category Paystack adds later reads as a chargeback', () => {
  expect(readDispute(answer({ category: 'fraud' }))?.stage).toBe('fraud');
  expect(readDispute(answer({ category: 'something-new' }))?.stage).toBe('chargeback');
});

test('an answer without the transaction, its amount or a time is unreadable, not guessed', () => {
  expect(readDispute(answer({ transaction: null }))).toBeNull();
  expect(readDispute(answer({ transaction: { reference: 'X', amount: 'lots' } }))).toBeNull();
  expect(readDispute(answer({ createdAt: undefined }))).toBeNull();
  // an event's body names the time created_at: the same reader takes it
  expect(readDispute(answer({ createdAt: undefined, created_at: '2026-12-04T19:00:00.000Z' }))?.openedAt).toEqual(new Date('2026-12-04T19:00:00Z'));
});

test('fetch answers one object; the list answers a list of the same objects, and says when another page follows', () => {
  expect(readDisputeFetch(200, { status: true, message: 'Dispute retrieved', data: answer() })).toMatchObject({ kind: 'found', dispute: { processorDisputeId: '2867' } });
  expect(readDisputeFetch(404, { status: false, message: 'Dispute not found' })).toEqual({ kind: 'not_found' });
  expect(readDisputeFetch(200, { status: true, data: [answer()] })).toMatchObject({ kind: 'unreadable' });
  const listed = readDisputeList(200, { status: true, data: [answer(), answer({ id: 2868, status: '??' })], meta: { total: 120, perPage: 50, page: 1, pageCount: 3 } });
  expect(listed).toMatchObject({ kind: 'listed', unreadable: 1, more: true });
  expect(listed.kind === 'listed' && listed.disputes.map((d) => d.processorDisputeId)).toEqual(['2867']);
  expect(readDisputeList(200, { status: true, data: answer() })).toMatchObject({ kind: 'unreadable' });
  expect(readDisputeList(401, { status: false, message: 'Invalid key' })).toMatchObject({ kind: 'unreadable' });
});

test('an event is read only for its dispute id, and only a charge.dispute.* event', () => {
  const event = (e: string, data: unknown) => Buffer.from(JSON.stringify({ event: e, data }));
  expect(disputeEventId(event('charge.dispute.create', { id: 2867 }))).toBe('2867');
  expect(disputeEventId(event('charge.dispute.remind', { id: 2867 }))).toBe('2867');
  expect(disputeEventId(event('charge.dispute.resolve', { id: '2867' }))).toBe('2867');
  expect(disputeEventId(event('charge.success', { id: 2867 }))).toBeNull();
  expect(disputeEventId(event('charge.dispute.create', { id: '../2867' }))).toBeNull();
  expect(disputeEventId(Buffer.from('not json'))).toBeNull();
});

describe('readEvidence (POST /dispute/:id/evidence)', () => {
  it('is done on 200 or 201 with status true, refused in Paystack\'s words on a 4xx but 429, and unreadable otherwise', () => {
    expect(readEvidence(201, { status: true, message: 'Evidence created', data: { id: 21000 } })).toEqual({ kind: 'done' });
    expect(readEvidence(200, { status: true })).toEqual({ kind: 'done' });
    expect(readEvidence(201, { status: false })).toEqual({ kind: 'unreadable', detail: 'evidence answered HTTP 201' });
    expect(readEvidence(400, { status: false, message: 'customer_phone is required' })).toEqual({ kind: 'refused', message: 'customer_phone is required' });
    expect(readEvidence(404, null)).toEqual({ kind: 'refused', message: 'HTTP 404' });
    expect(readEvidence(429, { status: false, message: 'Too many requests' })).toEqual({ kind: 'unreadable', detail: 'evidence answered HTTP 429' });
    expect(readEvidence(502, null)).toEqual({ kind: 'unreadable', detail: 'evidence answered HTTP 502' });
  });
});
