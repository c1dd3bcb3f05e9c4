// Card disputes (docs/contract/disputes.md): the merchant reads its own.
import { toDisputeRecord } from '../../api-records/dispute';
import { principalOf } from '../context';
import { ok } from '../envelope';
import { typedHandlers } from '../typed';

export const merchant = typedHandlers({
  getDispute: async ({ path }, ctx) => ok(toDisputeRecord(await ctx.services.disputes.get(principalOf(ctx).businessId, path.gateway_reference)), 'Dispute retrieved'),
});
export const admin = typedHandlers({});
