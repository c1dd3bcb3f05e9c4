// Refunds (docs/contract/refunds.md): accept one, read one, list them. The refund service does the work.
import { parseApiTime } from '../../domain/time';
import type { RefundStatus } from '../../domain/refund';
import { toRefundRecord } from '../../refunds/record';
import { principalOf } from '../context';
import { accepted, ok } from '../envelope';
import { pageOf, pageReply } from '../paging';
import { typedHandlers } from '../typed';

export const merchant = typedHandlers({
  createRefund: async ({ path, body }, ctx) => {
    const who = principalOf(ctx);
    const { row, replayed } = await ctx.services.refunds.create(who, path.gateway_reference, body, ctx.requestId);
    const message = replayed ? 'Refund already accepted' : 'Refund accepted';
    return accepted(toRefundRecord(row), message, replayed ? { 'Idempotent-Replayed': 'true' } : undefined);
  },

  getRefund: async ({ path }, ctx) => ok(toRefundRecord(await ctx.services.refunds.get(principalOf(ctx).businessId, path.gateway_reference)), 'Refund retrieved'),

  listRefunds: async ({ query }, ctx) => {
    const page = pageOf(query);
    const date = (v: string | undefined) => (v === undefined ? undefined : parseApiTime(v));
    const filters = {
      status: query.status as RefundStatus | undefined,
      currency: query.currency,
      merchant_reference: query.merchant_reference,
      collection_gateway_reference: query.collection_gateway_reference,
      from: date(query.from),
      to: date(query.to),
    };
    const found = await ctx.services.refunds.list(principalOf(ctx).businessId, filters, page);
    return pageReply(ctx, query, page, { ...found, rows: found.rows.map(toRefundRecord) }, 'Refunds retrieved');
  },
});
export const admin = {};
