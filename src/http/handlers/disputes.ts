// Card disputes (docs/contract/disputes.md): the merchant lists and reads its own, and accepts or contests one.
import { toDisputeRecord } from '../../api-records/dispute';
import type { DisputeStatus } from '../../domain/dispute';
import { principalOf } from '../context';
import { ok } from '../envelope';
import { pageOf, pageReply } from '../paging';
import { typedHandlers } from '../typed';

export const merchant = typedHandlers({
  acceptDispute: async ({ path, body }, ctx) =>
    ok(toDisputeRecord(await ctx.services.disputes.accept(principalOf(ctx).businessId, path.gateway_reference, body)), 'Dispute accepted'),
  submitDisputeEvidence: async ({ path, body }, ctx) =>
    ok(toDisputeRecord(await ctx.services.disputes.submitEvidence(principalOf(ctx).businessId, path.gateway_reference, body)), 'Evidence submitted'),
  listDisputes: async ({ query }, ctx) => {
    const page = pageOf(query);
    const found = await ctx.services.disputes.list(principalOf(ctx).businessId, query.status as DisputeStatus | undefined, page);
    return pageReply(ctx, query, page, { ...found, rows: found.rows.map(toDisputeRecord) }, 'Disputes retrieved');
  },
  getDispute: async ({ path }, ctx) => ok(toDisputeRecord(await ctx.services.disputes.get(principalOf(ctx).businessId, path.gateway_reference)), 'Dispute retrieved'),
});
export const admin = typedHandlers({});
