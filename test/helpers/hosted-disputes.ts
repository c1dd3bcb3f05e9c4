// A card payment Paystack completes at once in the hosted world (test/helpers/hosted.ts), to refund or for
// its bank to dispute through the fake Paystack's disputes, a dispute's row as the disputes wing wrote it, and
// the dispute webhooks the merchant received.
import { encryptCard } from '../../scripts/encrypt-card';
import { signWebhook } from '../../src/notifications/signing';
import { NO_3DS_CARD } from '../fakes/paystack';
import type { FakeTransaction } from '../fakes/paystack';
import { requestPayment, startHostedWorld } from './hosted';
import type { HostedWorld } from './hosted';
import { eventually } from './notify-fixtures';
import type { Received } from './notify-fixtures';

/** The hosted world's API token's webhook_hash (helpers/hosted.ts). */
export const HOSTED_WEBHOOK_HASH = 'whsec-hosted-0123456789abcdef';

/** The hosted world with no scheduled processor checks, its merchant asking for merchant e-mails (a dispute's are among them). */
export async function startDisputeWorld(): Promise<HostedWorld> {
  const w = await startHostedWorld({ PROCESSOR_CHECK_SCHEDULE: '10m' });
  await w.svc.services.db.none('UPDATE api_tokens SET email_merchant = true WHERE business_id = $1', [w.businessId]);
  return w;
}

/** A NGN 25,000 card payment Paystack completes at once, and its transaction at the fake. */
export async function cardPaid(w: HostedWorld): Promise<{ collection: string; tx: FakeTransaction }> {
  const key = (await w.client.get('/v1/public-key')).body.data.public_key;
  const encrypted = encryptCard(key, {
    full_name: 'Adaeze Okafor', card_number: NO_3DS_CARD, expiry_month: '12', expiry_year: String(new Date().getUTCFullYear() + 2), cvv: '408',
    billing_address: '3 Marina', billing_city: 'Lagos', billing_zip: '', billing_state: 'Lagos', billing_country: 'NG',
  });
  const p = await requestPayment(w, 'CARD', { encrypted_card: encrypted });
  await eventually(async () => (await w.client.get(`/v1/collections/${p.gateway_reference}`)).body.data.transaction_status === 'COMPLETED', 15_000, 'paid');
  const tx = w.paystack.transaction(p.gateway_reference);
  if (!tx) throw new Error('no transaction at the fake');
  return { collection: p.gateway_reference, tx };
}

export interface DisputeRow { id: bigint; evidence: Record<string, unknown> | null; gateway_reference: string; status: string; processor_status: string; stage: string; amount_minor: bigint; held_minor: bigint; debited_minor: bigint | null; refunded_minor: bigint; deadline_at: Date; opened_at: Date; resolution: string | null; updated_at: Date }

/** The dispute of the fake's `processorId` once it is in `status`. */
export const disputeIn = (w: HostedWorld, processorId: number, status: string) => eventually(async () => {
  const r = await w.svc.services.db.oneOrNone<DisputeRow>('SELECT * FROM disputes WHERE processor_dispute_id = $1', [String(processorId)]);
  return r?.status === status ? r : undefined;
}, 15_000, `dispute ${status}`);

/** The dispute webhooks the merchant received about a dispute, once the outbox has delivered everything. */
export async function disputeWebhooks(w: HostedWorld, gatewayReference: string): Promise<Received[]> {
  await eventually(async () => Number((await w.svc.services.db.one('SELECT count(*) AS n FROM notifications WHERE delivered_at IS NULL AND gave_up_at IS NULL')).n) === 0, 15_000, 'the outbox delivered');
  return w.hooks.received.filter((r) => {
    const b = JSON.parse(r.body);
    return b.transaction_type === 'dispute' && b.gateway_reference === gatewayReference;
  });
}

export function signedByTheHostedHash(r: Received): boolean {
  const h = (name: string) => String(r.headers[name]);
  return signWebhook(HOSTED_WEBHOOK_HASH, h('webhook-id'), Number(h('webhook-timestamp')), r.body) === h('webhook-signature');
}
