// Asking for a refund (docs/contract/refunds.md): a refund of a COMPLETED collection is accepted with its
// hold on the wallet's available balance, the collection's refunded amount and the audit entry, in one
// transaction; a replay answers the refund made first. Reading one, a collection's, and listing them.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { components } from '../../generated/merchant-api';
import { sqlFiles } from '../db';
import { WingFlow } from '../base';
import type { Tx } from '../db';
import { listPage } from '../db/keyset';
import type { KeyColumn, ListPage, PageRequest } from '../db/keyset';
import { moneyText } from '../domain/currencies';
import { requestedMinor } from '../domain/money';
import { availableCovers, REFUND_MESSAGES, refundAmounts, refundHoldPlan, RefundRefused } from '../domain/refund';
import { AppError, validationError } from '../errors';
import { currentTraceParent } from '../telemetry';
import { refundWhere } from './filters';
import type { RefundFilters } from './filters';
import type { RefundParts } from './parts';
import { toRefundRecord } from '../api-records/refund';
import type { RefundRow } from '../api-records/refund';
import type { RefundStateChanges } from './state-change';

export type RefundCreateBody = components['schemas']['RefundCreate'];

/**
 * Who asks for a refund: an API token of the business (the merchant API: the refund is audited under
 * it), or a person in the dashboard (audited by the operator API's own entry). The refund's notifications
 * go to apiTokenId's webhook: the asking token's, or the collection's for the dashboard.
 */
export interface RefundRequester {
  businessId: number;
  apiTokenId: number | null;
  /** the merchant API: this API token asked, and the refund's audit entry names it */
  byToken: boolean;
}

const SQL = sqlFiles(__dirname, [
  'lock-collection', 'refunded-account', 'lock-wallet', 'wallet-available', 'insert-refund', 'collection-refunded', 'by-reference', 'by-gateway-reference', 'of-collection',
]);

const REF_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const NEWEST_FIRST: KeyColumn[] = [
  { column: 'created_at', type: 'timestamptz' },
  { column: 'id', type: 'bigint' },
];

interface LockedCollection {
  id: bigint;
  business_id: number;
  status: string;
  gateway_reference: string;
  request_amount_minor: bigint;
  request_currency: string;
  account_amount_minor: bigint;
  account_currency: string;
  refunded_minor: bigint;
  mid_id: number | null;
  service_type: string | null;
  /** a dispute of the payment that is open, lost or accepted */
  dispute_reference: string | null;
}

/** Thrown inside the create transaction when a concurrent request took the merchant_reference first. */
class ReferenceTaken extends Error {}

function newGatewayReference(): string {
  return 'RF' + Array.from(randomBytes(20), (b) => REF_ALPHABET[b % REF_ALPHABET.length]).join('');
}

/** A stable digest of what the refund asks for: the collection and the body, keys in a fixed order. */
export function refundRequestHash(collectionReference: string, body: RefundCreateBody): string {
  const asked = { collection: collectionReference, amount: body.amount ?? null, merchant_reference: body.merchant_reference, reason: body.reason ?? null };
  return createHash('sha256').update(JSON.stringify(asked)).digest('hex');
}

export class RefundRequests extends WingFlow<RefundParts, RefundStateChanges> {
  /**
   * Accepts a refund of the caller's COMPLETED collection: the refund row, the collection's refunded
   * amount, the hold journal and the audit entry commit together, or nothing does. A replay (same
   * reference and body) answers the refund made first; a different body is DUPLICATE_MERCHANT_REFERENCE.
   */
  async create(who: RefundRequester, collectionReference: string, body: RefundCreateBody, requestId: string | null): Promise<{ row: RefundRow; replayed: boolean }> {
    const hash = refundRequestHash(collectionReference, body);
    const earlier = await this.byMerchantReference(who.businessId, body.merchant_reference);
    if (earlier) return this.replay(earlier, hash);
    const requested = body.amount === undefined ? null : requestedMinor(body.amount);
    try {
      const row = await this.db.tx('refund-create', (t) => this.createIn(t, who, collectionReference, body, hash, requested, requestId));
      this.p.kick('refund-sends');
      return { row, replayed: false };
    } catch (e) {
      if (!(e instanceof ReferenceTaken)) throw e;
      const winner = await this.byMerchantReference(who.businessId, body.merchant_reference);
      if (!winner) throw new Error('refund merchant_reference conflict without a row');
      return this.replay(winner, hash);
    }
  }

  private replay(row: RefundRow, hash: string): { row: RefundRow; replayed: boolean } {
    if (row.request_hash !== hash) throw new AppError('DUPLICATE_MERCHANT_REFERENCE', 'merchant_reference was already used for a different refund');
    return { row, replayed: true };
  }

  private async createIn(t: Tx, who: RefundRequester, collectionReference: string, body: RefundCreateBody, hash: string, requested: bigint | null, requestId: string | null): Promise<RefundRow> {
    const c = await t.oneOrNone<LockedCollection>(SQL.lockCollection, { gatewayReference: collectionReference, businessId: who.businessId });
    if (!c) throw new AppError('NOT_FOUND', 'No collection of yours has this gateway_reference');
    if (c.status !== 'COMPLETED') throw new AppError('INVALID_STATE', `The collection is ${c.status}; only a COMPLETED collection can be refunded`);
    if (c.dispute_reference) {
      throw new AppError('INVALID_STATE', `The payment is disputed (dispute ${c.dispute_reference}): the customer's bank returns the money through the dispute, so it cannot also be refunded`);
    }
    if (!c.service_type || !this.p.refundsOf(c.service_type)) {
      throw new AppError('INVALID_STATE', `The processor that took this payment (${c.service_type ?? 'none'}) offers no refunds through this service`);
    }
    const { refunded_account_minor: refundedAccount } = await t.one<{ refunded_account_minor: bigint }>(SQL.refundedAccount, { collectionId: c.id });
    const amounts = refundAmountsOrRefuse(c, refundedAccount, requested);
    const { refused } = this.p.amountCheck(c.service_type, { kind: 'refund', amountMinor: amounts.amountMinor, currency: c.request_currency, paidMinor: c.request_amount_minor });
    if (refused) throw validationError([refused]);
    const wallet = await t.oneOrNone<{ id: number }>(SQL.lockWallet, { businessId: c.business_id, currency: c.account_currency });
    if (!wallet) throw new Error(`collection ${c.id} has no ${c.account_currency} wallet`);
    const { available_minor: available } = await t.one<{ available_minor: bigint }>(SQL.walletAvailable, { walletId: wallet.id });
    if (!availableCovers(available, amounts.accountAmountMinor)) {
      throw new AppError(
        'INSUFFICIENT_FUNDS',
        `The ${c.account_currency} wallet has ${moneyText(available, c.account_currency)} available; this refund needs ${moneyText(amounts.accountAmountMinor, c.account_currency)}`,
      );
    }
    const now = this.p.now();
    const row = await t.oneOrNone<RefundRow>(SQL.insertRefund, {
      businessId: who.businessId, apiTokenId: who.apiTokenId, collectionId: c.id, walletId: wallet.id, gatewayReference: newGatewayReference(),
      merchantReference: body.merchant_reference, requestHash: hash, amountMinor: amounts.amountMinor, currency: c.request_currency,
      accountAmountMinor: amounts.accountAmountMinor, accountCurrency: c.account_currency, reason: body.reason ?? null, message: REFUND_MESSAGES.PENDING,
      serviceType: c.service_type, midId: c.mid_id, reference: randomUUID(), callbackToken: randomBytes(24).toString('base64url'), now,
      collectionGatewayReference: c.gateway_reference, traceParent: currentTraceParent(),
    });
    if (!row) throw new ReferenceTaken();
    await t.none(SQL.collectionRefunded, { collectionId: c.id, deltaMinor: amounts.amountMinor });
    await this.changes.post(t, row, refundHoldPlan({ walletId: wallet.id, currency: c.account_currency, accountAmountMinor: row.account_amount_minor }), now);
    if (who.byToken) {
      await this.p.audit.tokenAction(t, { now, apiTokenId: who.apiTokenId as number, action: 'createRefund', targetType: 'refund', targetId: row.gateway_reference, after: toRefundRecord(row), requestId });
    }
    return row;
  }

  /** The caller's refund; NOT_FOUND for anyone else's. */
  async get(businessId: number, gatewayReference: string): Promise<RefundRow> {
    const row = await this.db.oneOrNone<RefundRow>(SQL.byGatewayReference, { gatewayReference, businessId });
    if (!row) throw new AppError('NOT_FOUND', 'No refund of yours has this gateway_reference');
    return row;
  }

  byMerchantReference(businessId: number, merchantReference: string): Promise<RefundRow | null> {
    return this.db.oneOrNone<RefundRow>(SQL.byReference, { businessId, merchantReference });
  }

  /** Every refund of a collection (found by its caller, who checked who may see it), newest first. */
  ofCollection(collectionId: bigint): Promise<RefundRow[]> {
    return this.db.any<RefundRow>(SQL.ofCollection, { collectionId });
  }

  /** Refunds, newest first, filtered: one business's (`f.business_id`, always set for a merchant) or every business's. */
  list(f: RefundFilters, page: PageRequest): Promise<ListPage<RefundRow>> {
    const w = refundWhere(f);
    const text = `SELECT r.*, c.gateway_reference AS collection_gateway_reference FROM refunds r JOIN collections c ON c.id = r.collection_id WHERE ${w.text}`;
    return listPage<RefundRow>(this.db, { sql: text, values: w.values, key: NEWEST_FIRST, direction: 'DESC' }, page);
  }
}

function refundAmountsOrRefuse(c: LockedCollection, refundedAccountMinor: bigint, requested: bigint | null) {
  try {
    return refundAmounts({ requestAmountMinor: c.request_amount_minor, accountAmountMinor: c.account_amount_minor, refundedMinor: c.refunded_minor, refundedAccountMinor }, requested);
  } catch (e) {
    if (!(e instanceof RefundRefused)) throw e;
    const rest = c.request_amount_minor - c.refunded_minor;
    const message = e.why === 'over_refund' ? `is more than the ${moneyText(rest, c.request_currency)} still refundable on this collection` : e.message;
    throw validationError([{ field: 'amount', message }]);
  }
}
