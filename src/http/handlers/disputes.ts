// Card disputes (docs/contract/disputes.md): the merchant reads its own and accepts one.
import { toDisputeRecord } from '../../api-records/dispute';
import { principalOf } from '../context';
import { ok } from '../envelope';
import { typedHandlers } from '../typed';

export const merchant = typedHandlers({
  acceptDispute: async ({ path, body }, ctx) =>
    ok(toDisputeRecord(await ctx.services.disputes.accept(principalOf(ctx).businessId, path.gateway_reference, body)), 'Dispute accepted'),
  getDispute: async ({ path }, ctx) => ok(toDisputeRecord(await ctx.services.disputes.get(principalOf(ctx).businessId, path.gateway_reference)), 'Dispute retrieved'),
});
export const admin = typedHandlers({});
