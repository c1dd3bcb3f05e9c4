import { toRecord } from '../../api-records/collection';
import { quoteRecord } from '../../api-records/quote';
import type { CollectionFilters } from '../../collections';
import { parseApiTime } from '../../domain/time';
import { toRefundSummary } from '../../api-records/refund';
import { principalOf } from '../context';
import { accepted, ok } from '../envelope';
import { pageOf, pageReply } from '../paging';
import { typedHandlers } from '../typed';
import type { QueryOf, Operations } from '../typed';

type ListFilter = 'status' | 'payment_method' | 'currency' | 'merchant_reference' | 'from' | 'to';

/** Query filters of the list and export operations (the operator's add business_id; the lists add held). */
export function filtersOf(q: Pick<QueryOf<Operations['listCollections']>, ListFilter> & { business_id?: string; held?: unknown }): CollectionFilters {
  const date = (v: string | undefined) => (v === undefined ? undefined : parseApiTime(v));
  return {
    status: q.status as CollectionFilters['status'],
    payment_method: q.payment_method as CollectionFilters['payment_method'],
    currency: q.currency,
    merchant_reference: q.merchant_reference,
    from: date(q.from),
    to: date(q.to),
    business_id: q.business_id === undefined ? undefined : Number(q.business_id),
    // the query's text, as the validator let it through ("true" or "false")
    held: String(q.held) === 'true' ? true : undefined,
  };
}

export const merchant = typedHandlers({
  requestToPay: async ({ body }, ctx) => {
    const { row, replayed } = await ctx.services.collections.requestToPay(principalOf(ctx), body);
    const message = replayed ? 'Collection request already accepted' : 'Collection request accepted';
    return accepted(toRecord(row), message, replayed ? { 'Idempotent-Replayed': 'true' } : undefined);
  },

  /** The one read that shows the collection's refunds in short; lists and notifications carry refunded_amount only. */
  getCollection: async ({ path }, ctx) => {
    const row = await ctx.services.collections.get(path.gateway_reference, principalOf(ctx).businessId);
    const refunds = await ctx.services.refunds.ofCollection(row.id);
    return ok({ ...toRecord(row), refunds: refunds.map(toRefundSummary) }, 'Collection retrieved');
  },

  /** An FX quote: priced now, held until its expires_at for a request-to-pay naming it. */
  createQuote: async ({ body }, ctx) => ok(quoteRecord(await ctx.services.quotes.createQuote(principalOf(ctx), body)), 'Quote given'),

  getQuote: async ({ path }, ctx) => ok(quoteRecord(await ctx.services.quotes.getQuote(principalOf(ctx).businessId, path.quote_id)), 'Quote retrieved'),

  listCollections: async ({ query }, ctx) => {
    const page = pageOf(query);
    const found = await ctx.services.collections.list({ ...filtersOf(query), business_id: principalOf(ctx).businessId }, page);
    return pageReply(ctx, query, page, { ...found, rows: found.rows.map(toRecord) }, 'Collections retrieved');
  },
});
export const admin = {};
