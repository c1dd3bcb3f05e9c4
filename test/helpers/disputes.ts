// A card dispute of a sandbox merchant, opened through the disputes wing's own writer (`record`, as a
// processor's word would be): a completed sandbox card payment, then the dispute on it with its hold.
import type { ObservedDispute } from '../../src/domain/dispute';
import { ref } from './fixtures';
import type { MerchantSetup } from './fixtures';
import type { TestService } from './service';

let counter = 0;

/** A completed UGX card payment of `amount` by the sandbox, then a dispute on the whole of it; its gateway_reference. */
export async function openDispute(svc: TestService, m: MerchantSetup, o: Partial<ObservedDispute> & { amount?: number } = {}): Promise<{ dispute: string; collection: string }> {
  const amount = o.amount ?? 500;
  const paid = await m.client.post('/v1/collections/request-to-pay', {
    currency: 'UGX', amount, payment_method: 'CARD', redirect_url: 'https://shop.example/done', merchant_reference: ref('DSP'), narration: 'Disputed order', account_name: 'Amina Nakato', account_email: 'amina@example.org',
  });
  if (paid.status !== 200 && paid.status !== 202) throw new Error(`request-to-pay: ${paid.status} ${paid.text}`);
  const collection = paid.body.data.gateway_reference as string;
  const done = await m.client.post(`/v1/sandbox/collections/${collection}/simulate`, { outcome: 'COMPLETED' });
  if (done.status !== 200) throw new Error(`simulate: ${done.text}`);
  counter += 1;
  const processorDisputeId = o.processorDisputeId ?? `test-${process.pid}-${counter}`;
  const recorded = await svc.services.disputes.record('sandbox', {
    processorDisputeId, transactionReference: collection, stage: 'chargeback', status: 'needs_response', processorStatus: 'needs_response',
    reason: 'Customer does not recognise the transaction', amountMinor: BigInt(amount * 100), currency: 'UGX', debitMinor: BigInt(amount * 100),
    resolution: null, openedAt: svc.services.now(), ...o,
  });
  if (recorded !== 'opened') throw new Error(`dispute not opened: ${recorded}`);
  const row = await svc.services.db.one<{ gateway_reference: string }>('SELECT gateway_reference FROM disputes WHERE processor_dispute_id = $1', [processorDisputeId]);
  return { dispute: row.gateway_reference, collection };
}
