// Refunds of hosted-checkout payments (Paystack, BTCPay) through the merchant API: asking for one, waiting
// for a state, and what the wallet, the ledger and the merchant's webhook show of it.
import type { HostedWorld } from './hosted';
import { expectOk } from './merchants';
import { eventually } from './notify-fixtures';

let seq = 0;

export interface RefundRecord {
  gateway_reference: string;
  transaction_status: string;
  amount: number;
  claim_url: string | null;
  failure_reason: string | null;
  pending_reason: string | null;
  [field: string]: unknown;
}

/** POST /v1/collections/{ref}/refunds with a fresh merchant_reference; the answer's record. */
export async function askRefund(w: HostedWorld, collection: string, body: { amount?: number; reason?: string } = {}): Promise<RefundRecord> {
  seq += 1;
  return expectOk<RefundRecord>(await w.client.post(`/v1/collections/${collection}/refunds`, { merchant_reference: `RFD-H-${process.pid}-${seq}`, ...body }), 'createRefund');
}

/** The refund record (GET /v1/refunds/{ref}) once it is in `status`. */
export function refundIn(w: HostedWorld, gatewayReference: string, status: string): Promise<RefundRecord> {
  return eventually(async () => {
    const r = expectOk<RefundRecord>(await w.client.get(`/v1/refunds/${gatewayReference}`), 'getRefund');
    return r.transaction_status === status ? r : undefined;
  }, 15_000, `refund ${status}`);
}

export async function walletOf(w: HostedWorld, currency: string): Promise<{ balance: number; available_balance: number; refund_held_balance: number; dispute_held_balance: number }> {
  return expectOk(await w.client.get(`/v1/data/wallets/${currency}/balance`), 'walletGetBalance');
}

export async function refundedAmount(w: HostedWorld, collection: string): Promise<number> {
  return expectOk<{ refunded_amount: number }>(await w.client.get(`/v1/collections/${collection}`), 'getCollection').refunded_amount;
}

/** The refund's request to the processor as stored: our reference, the processor's id, the claim link. */
export function refundRow(w: HostedWorld, gatewayReference: string) {
  return w.svc.services.db.one<{ reference: string; vendor_reference: string | null; claim_url: string | null; send_state: string }>(
    'SELECT reference, vendor_reference, claim_url, send_state FROM refunds WHERE gateway_reference = $1',
    [gatewayReference],
  );
}

/** The refund's ledger postings, journal by journal: which journal, which account kind, how much (minor units). */
export function refundPostings(w: HostedWorld, gatewayReference: string) {
  return w.svc.services.db.any<{ journal: string; account: string; amount: number }>(
    `SELECT j.kind AS journal, a.kind AS account, p.amount_minor::float8 AS amount
     FROM refunds r JOIN journals j ON j.refund_id = r.id JOIN postings p ON p.journal_id = j.id JOIN ledger_accounts a ON a.id = p.account_id
     WHERE r.gateway_reference = $1 ORDER BY j.id, p.amount_minor`,
    [gatewayReference],
  );
}

/** The ledger of a refund of `minor` that ended `outcome`: the hold, then its way out or its return. */
export function postingsOf(outcome: 'COMPLETED' | 'RETURNED', minor: number) {
  return [
    { journal: 'refund_hold', account: 'available', amount: -minor },
    { journal: 'refund_hold', account: 'refund_hold', amount: minor },
    ...(outcome === 'COMPLETED'
      ? [{ journal: 'refund_out', account: 'refund_hold', amount: -minor }, { journal: 'refund_out', account: 'processor_clearing', amount: minor }]
      : [{ journal: 'refund_return', account: 'refund_hold', amount: -minor }, { journal: 'refund_return', account: 'available', amount: minor }]),
  ];
}

/** The refund notifications the merchant's webhook received for a refund, by sequence. */
export function refundHooks(w: HostedWorld, gatewayReference: string): { transaction_status: string; sequence: number }[] {
  return w.hooks.received
    .map((r) => JSON.parse(r.body))
    .filter((b) => b.transaction_type === 'refund' && b.gateway_reference === gatewayReference)
    .map((b) => ({ transaction_status: b.transaction_status, sequence: b.sequence }))
    .sort((a, b) => a.sequence - b.sequence);
}
