// Card disputes (docs/contract/disputes.md): the merchant lists and reads its own, and accepts or contests
// one; the operator reads every business's (a merchant user its own).
import { toAdminDisputeRecord, toDisputeRecord } from '../../api-records/dispute';
import { parseApiTime } from '../../domain/time';
import { AppError } from '../../errors';
import type { DisputeStatus } from '../../domain/dispute';
import { merchantUser, principalOf } from '../context';
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
    const found = await ctx.services.disputes.list({ business_id: principalOf(ctx).businessId, status: query.status as DisputeStatus | undefined }, page);
    return pageReply(ctx, query, page, { ...found, rows: found.rows.map(toDisputeRecord) }, 'Disputes retrieved');
  },
  getDispute: async ({ path }, ctx) => ok(toDisputeRecord(await ctx.services.disputes.get(principalOf(ctx).businessId, path.gateway_reference)), 'Dispute retrieved'),
});
export const admin = typedHandlers({
  listAdminDisputes: async ({ query }, ctx) => {
    const page = pageOf(query);
    const filters = {
      business_id: query.business_id === undefined ? undefined : Number(query.business_id),
      status: query.status as DisputeStatus | undefined,
      mid_id: query.mid_id === undefined ? undefined : Number(query.mid_id),
      deadline_before: query.deadline_before === undefined ? undefined : parseApiTime(query.deadline_before),
    };
    // as on the other lists: an operator's filter on a business that does not exist is a mistake to say
    if (filters.business_id !== undefined && !merchantUser(ctx)) await ctx.services.businesses.getBusiness(filters.business_id);
    const found = await ctx.services.disputes.list(filters, page);
    return pageReply(ctx, query, page, { ...found, rows: found.rows.map(toAdminDisputeRecord) }, 'Disputes retrieved');
  },
  /** The dashboard's Accept: the signed-in owner's own business (the role rule let owners through; an operator admin has none), as acceptDispute. */
  acceptAdminDispute: async ({ path, body }, ctx) => {
    const actor = ctx.actor;
    if (actor?.type !== 'user' || actor.user.business_id === null) throw new AppError('FORBIDDEN', "Only a business's own owners accept its disputes");
    await ctx.services.disputes.accept(actor.user.business_id, path.dispute_reference, body);
    return ok(toAdminDisputeRecord(await ctx.services.disputes.get(actor.user.business_id, path.dispute_reference)), 'Dispute accepted');
  },
  getAdminDispute: async ({ path }, ctx) => ok(toAdminDisputeRecord(await ctx.services.disputes.get(null, path.dispute_reference)), 'Dispute retrieved'),
});
