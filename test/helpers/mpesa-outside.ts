// A payment reversed outside the service (the merchant's M-Pesa org portal, M-Pesa support, another client),
// through the project's fake Daraja: a refund of it the service then asks for is answered "already reversed"
// (R000001) and held for an operator.
import { mpesaProcessor } from '../../src/processors/mpesa';
import type { RefundConnector } from '../../src/processors/types';
import type { FakeMpesa } from '../fakes/mpesa';
import { eventually } from './notify-fixtures';

/** Reverses the whole KES 1,500 of `collection` (its M-Pesa `receipt`) with the MID's own credentials; `tag` names the reversal. */
export async function reverseOutside(fake: FakeMpesa, midId: number, collection: string, receipt: string, callbackUrl: string, tag: string): Promise<void> {
  const elsewhere = mpesaProcessor({ baseUrl: fake.url!, timeoutMs: 1500, tokenMarginMs: 60_000 }).connector?.refunds as RefundConnector;
  const outside = await elsewhere.initiateRefund({ midId, credentials: fake.refundCredentials() }, {
    reference: `outside-${tag}`, gatewayReference: `OUTSIDE-${tag}`, original: { reference: collection, vendorReference: null, receipt, amountMinor: 150_000n, accountNumber: '254708374149' },
    amountMinor: 150_000n, currency: 'KES', reason: 'Reversed from the org portal', callbackUrl,
  });
  if (outside.kind !== 'accepted') throw new Error(`expected accepted, got ${outside.kind}`);
  await eventually(() => fake.reversals.get(outside.vendorReference!)?.resultCode === '0', 10_000, 'reversed outside');
}
