// Proves the refund's request to its processor, driven by hand on a controlled clock: a refund whose worker died after claiming it is never sent blind (nothing while the lease runs; after it, a status query, and a send under the same reference only once the processor does not know it); an unknown outcome is settled by a status query, and one the processor never received is sent again under the same reference, never a new one; a callback only brings the status query forward.
import type { Claimed as RefundClaim } from '../../src/refunds/processor-calls';
import { mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

/** the lease of a claim: four calls of PROCESSOR_TIMEOUT_MS (1 s here) and a 10 s margin */
const LEASE_MS = 14_000;

let svc: TestService;
let m: MerchantSetup;
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);
beforeAll(async () => {
  svc = await startTestService({ workers: false, now, env: { PROCESSOR_TIMEOUT_MS: '1000', PROCESSOR_CHECK_SCHEDULE: '30s', PROCESSOR_SEND_SCHEDULE: '0s,1s' } });
  m = await setupMerchant(svc);
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(() => svc?.close());

async function pendingRefund(): Promise<{ id: string; gateway_reference: string }> {
  const created = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: '256700000009' }));
  await m.client.post(`/v1/sandbox/collections/${created.body.data.gateway_reference}/simulate`, { outcome: 'COMPLETED' });
  const res = await m.client.post(`/v1/collections/${created.body.data.gateway_reference}/refunds`, { amount: 500, merchant_reference: ref('RFD') });
  expect(res.body.data).toMatchObject({ transaction_status: 'PENDING', pending_reason: 'awaiting_processor' });
  return res.body.data;
}

/** A callback through the one lookup: true when some request has its token, false for nobody's (NOT_FOUND). */
const prompted = (serviceType: string, token: string, body: unknown): Promise<boolean> =>
  svc.services.processorRequests.prompt(serviceType, token, body).then(() => true, (e: { code?: string }) => (e.code === 'NOT_FOUND' ? false : Promise.reject(e)));

const stateOf = (id: string) =>
  svc.database.db.one('SELECT status, pending_reason, reference, vendor_reference, send_state, send_attempts FROM refunds WHERE id = $1', [id]);

it('never sends blind a refund whose worker died after claiming it: after the lease a status query asks, and one the processor never received is sent again under the same reference', async () => {
  const r = await pendingRefund();
  const { reference } = await stateOf(r.id);
  // a worker claims it (marked 'sending' before any call) and dies before the outcome is written
  const claimed = await svc.services.processorRequests.claimSends<RefundClaim>('refund');
  expect(claimed.map((c) => [c.id.toString(), c.send_state, c.was_sending])).toEqual([[r.id, 'sending', false]]);
  expect(await svc.services.processorRequests.sendDue('refund')).toBe(0); // the lease holds it
  offsetMs += LEASE_MS + 1000;
  // claimed again after the lease: its call may have reached the processor, so it is an unknown outcome, not a send
  expect(await svc.services.processorRequests.sendDue('refund')).toBe(1);
  expect(await stateOf(r.id)).toMatchObject({ status: 'PENDING', pending_reason: 'outcome_unknown', reference, vendor_reference: null, send_state: 'unknown', send_attempts: 2 });
  expect((await m.client.get(`/v1/refunds/${r.gateway_reference}`)).body.data).toMatchObject({ transaction_status: 'PENDING', pending_reason: 'outcome_unknown' });
  offsetMs += 1000; // the send schedule's delay before the status query
  expect(await svc.services.processorRequests.checkDue('refund')).toBe(1);
  // the simulator never received it (it has no refund under this reference): queued again, same reference
  expect(await stateOf(r.id)).toMatchObject({ status: 'PENDING', pending_reason: 'awaiting_processor', reference, send_state: 'queued', send_attempts: 2 });
  expect(await svc.services.processorRequests.sendDue('refund')).toBe(1);
  expect(await stateOf(r.id)).toMatchObject({ status: 'PROCESSING', pending_reason: null, reference, vendor_reference: `SBXR-R-${reference}`, send_state: 'sent', send_attempts: 3 });
  offsetMs += 31_000;
  expect(await svc.services.processorRequests.checkDue('refund')).toBe(1);
  expect((await m.client.get(`/v1/refunds/${r.gateway_reference}`)).body.data.transaction_status).toBe('COMPLETED');
});

it('settles an unknown outcome with a status query, and sends one the processor never received again under the same reference', async () => {
  const r = await pendingRefund();
  const { reference } = await stateOf(r.id);
  // what a send whose answer could not be read leaves behind (the processor never got it: no reference of its own)
  await svc.database.db.none(
    "UPDATE refunds SET send_state = 'unknown', pending_reason = 'outcome_unknown', next_send_at = NULL, next_check_at = $2, send_attempts = 1 WHERE id = $1",
    [r.id, now()],
  );
  expect((await m.client.get(`/v1/refunds/${r.gateway_reference}`)).body.data).toMatchObject({ transaction_status: 'PENDING', pending_reason: 'outcome_unknown' });
  expect(await svc.services.processorRequests.checkDue('refund')).toBe(1);
  expect(await stateOf(r.id)).toMatchObject({ status: 'PENDING', pending_reason: 'awaiting_processor', send_state: 'queued', reference });
  expect(await svc.services.processorRequests.sendDue('refund')).toBe(1);
  expect(await stateOf(r.id)).toMatchObject({ status: 'PROCESSING', reference, vendor_reference: `SBXR-R-${reference}`, send_attempts: 2 });
});

it('takes a callback as a prompt to ask the processor now, never as the answer; an unknown token is nobody\'s', async () => {
  offsetMs += 31_000;
  while ((await svc.services.processorRequests.checkDue('refund')) > 0); // the earlier tests' refunds settle first
  const r = await pendingRefund();
  expect(await svc.services.processorRequests.sendDue('refund')).toBe(1);
  const { callback_token: token } = await svc.database.db.one('SELECT callback_token FROM refunds WHERE id = $1', [r.id]);
  expect(await svc.services.processorRequests.checkDue('refund')).toBe(0); // its first query is not due yet
  expect(await prompted('sandbox', token, { status: 'REFUNDED' })).toBe(true);
  expect(await stateOf(r.id)).toMatchObject({ status: 'PROCESSING' }); // the body proves nothing
  expect(await svc.services.processorRequests.checkDue('refund')).toBe(1);
  expect(await stateOf(r.id)).toMatchObject({ status: 'COMPLETED' });
  expect(await prompted('sandbox', 'x'.repeat(32), {})).toBe(false);
  expect(await prompted('no-such-processor', token, {})).toBe(false);
});

it('a status query whose answer comes after a callback settled the refund leaves it settled: never asked about again', async () => {
  const r = await pendingRefund();
  expect(await svc.services.processorRequests.sendDue('refund')).toBe(1);
  expect(await stateOf(r.id)).toMatchObject({ status: 'PROCESSING', send_state: 'sent' });
  // a worker has claimed the status query (the row as it read it) when the processor's callback completes the refund
  const claimed = await svc.database.db.one<RefundClaim>("SELECT *, send_state AS state, false AS was_sending, false AS watch FROM refunds WHERE id = $1", [r.id]);
  expect(await svc.services.refunds.move(BigInt(r.id), { to: 'COMPLETED' })).not.toBeNull();
  // then the query's answer: still with the processor
  await svc.services.refunds.adapter.checked(claimed, {
    kind: 'observed',
    observed: { status: 'PENDING', vendorStatus: 'Pending', message: null, amountMinor: null, currency: null, unmapped: false },
  });
  const after = await svc.database.db.one('SELECT status, send_state, next_check_at FROM refunds WHERE id = $1', [r.id]);
  expect(after).toEqual({ status: 'COMPLETED', send_state: 'settled', next_check_at: null });
  expect(svc.logs.some((l) => l.includes('late processor answer for a refund already final: ignored') && l.includes(r.gateway_reference))).toBe(true);
  offsetMs += 31_000;
  expect(await svc.services.processorRequests.checkDue('refund')).toBe(0);
});
