// Refunds (docs/contract/refunds.md): accept one (merchant API, or the dashboard's Refund button), read
// one, list them (a business's, or in the operator API one collection's). The refund service does the work.
import { parseApiTime } from '../../domain/time';
import type { RefundStatus } from '../../domain/refund';
import { AppError } from '../../errors';
import type { RefundFilters } from '../../refunds/filters';
import { toAdminRefundRecord, toRefundRecord } from '../../api-records/refund';
import type { RefundRow } from '../../api-records/refund';
import { merchantUser, principalOf } from '../context';
import { accepted, ok } from '../envelope';
import { pageOf, pageReply } from '../paging';
import { typedHandlers } from '../typed';
import type { Operations, QueryOf } from '../typed';

type RefundQuery = Pick<QueryOf<Operations['listRefunds']>, 'status' | 'currency' | 'merchant_reference' | 'collection_gateway_reference' | 'from' | 'to'>;

/**
 * The refund list's filters (validated by the contract), as the list and the refunds export apply them;
 * `business_id` and `held` are the operator API's own.
 */
export function refundFiltersOf(q: RefundQuery & { business_id?: string; held?: string }): RefundFilters {
  const date = (v: string | undefined) => (v === undefined ? undefined : parseApiTime(v));
  return {
    status: q.status as RefundStatus | undefined,
    currency: q.currency,
    merchant_reference: q.merchant_reference,
    collection_gateway_reference: q.collection_gateway_reference,
    from: date(q.from),
    to: date(q.to),
    business_id: q.business_id === undefined ? undefined : Number(q.business_id),
    held: q.held === 'true',
  };
}

export const merchant = typedHandlers({
  createRefund: async ({ path, body }, ctx) => {
    const p = principalOf(ctx);
    const refunded = await ctx.services.refunds.create({ businessId: p.businessId, apiTokenId: p.apiTokenId, byToken: true }, path.gateway_reference, body, ctx.requestId);
    return refundAccepted(refunded);
  },

  getRefund: async ({ path }, ctx) => ok(toRefundRecord(await ctx.services.refunds.get(principalOf(ctx).businessId, path.gateway_reference)), 'Refund retrieved'),

  listRefunds: async ({ query }, ctx) => {
    const page = pageOf(query);
    const found = await ctx.services.refunds.list({ ...refundFiltersOf(query), business_id: principalOf(ctx).businessId }, page);
    return pageReply(ctx, query, page, { ...found, rows: found.rows.map(toRefundRecord) }, 'Refunds retrieved');
  },
});
export const admin = typedHandlers({
  /** The dashboard's Refund button: the collection's business (the access layer confined a merchant to its own), its API token's webhook. */
  createAdminRefund: async ({ path, body }, ctx) => {
    const owner = await ctx.services.db.oneOrNone<{ business_id: number; api_token_id: number | null }>(
      'SELECT business_id, api_token_id FROM collections WHERE gateway_reference = $1',
      [path.gateway_reference],
    );
    if (!owner) throw new AppError('NOT_FOUND', 'No collection has this gateway_reference');
    const who = { businessId: owner.business_id, apiTokenId: owner.api_token_id, byToken: false };
    return refundAccepted(await ctx.services.refunds.create(who, path.gateway_reference, body, ctx.requestId));
  },

  /** The dashboard's refunds list: every business's or `business_id`'s (the access layer set a merchant user's own). */
  listAdminRefunds: async ({ query }, ctx) => {
    const page = pageOf(query);
    const filters = refundFiltersOf(query);
    // as on the collections list: an operator's filter on a business that does not exist is a mistake to say
    if (filters.business_id !== undefined && !merchantUser(ctx)) await ctx.services.businesses.getBusiness(filters.business_id);
    const found = await ctx.services.refunds.list(filters, page);
    const operator = !merchantUser(ctx);
    return pageReply(ctx, query, page, { ...found, rows: found.rows.map((r) => toAdminRefundRecord(r, operator)) }, 'Refunds retrieved');
  },

  /** An operator admin's decision on a refund held for them (the role rule lets no one else here). */
  resolveHeldRefund: async ({ path, body }, ctx) => {
    const by = ctx.actor?.type === 'user' ? ctx.actor.user.email : 'operator key';
    const row = await ctx.services.refunds.resolveHeld(path.refund_reference, body.outcome, body.note, by);
    return ok(toAdminRefundRecord(row, true), 'Held refund resolved');
  },

  /** A payment page's list of refunds, as the refunds list shows each: the access layer confined a merchant to its own collections. */
  listAdminCollectionRefunds: async ({ path }, ctx) => {
    const collection = await ctx.services.collections.get(path.gateway_reference, null);
    const refunds = await ctx.services.refunds.ofCollection(collection.id);
    const operator = !merchantUser(ctx);
    return ok(refunds.map((r) => toAdminRefundRecord(r, operator)), 'Refunds retrieved');
  },
});

function refundAccepted({ row, replayed }: { row: RefundRow; replayed: boolean }) {
  const message = replayed ? 'Refund already accepted' : 'Refund accepted';
  return accepted(toRefundRecord(row), message, replayed ? { 'Idempotent-Replayed': 'true' } : undefined);
}
