import { AppError } from '../../errors';
import { certificationOf } from '../../sandbox/certification';
import { toAdminRecord } from '../../api-records/collection';
import { toRefundSummary } from '../../refunds/record';
import type { RequestContext } from '../context';
import { ok } from '../envelope';
import { pageOf, pageReply } from '../paging';
import { typedHandlers } from '../typed';
import { filtersOf } from './collections';

/** One collection of any business with its operator details and its refunds in short (the list has no refunds). */
async function adminRecordOf(ctx: RequestContext, gatewayReference: string) {
  const collections = ctx.services.collections;
  const row = await collections.get(gatewayReference, null);
  const request = await ctx.services.processorRequests.viewOf(row.id);
  const refunds = await ctx.services.refunds.ofCollection(row.id);
  return { ...toAdminRecord(row, await collections.postingsOf(row.id), request), refunds: refunds.map(toRefundSummary) };
}

export const merchant = {};
export const admin = typedHandlers({
  listAdminCollections: async ({ query }, ctx) => {
    const page = pageOf(query);
    const collections = ctx.services.collections;
    const requests = ctx.services.processorRequests;
    const found = await collections.list(filtersOf(query), page);
    const rows = await Promise.all(found.rows.map(async (r) => toAdminRecord(r, await collections.postingsOf(r.id), await requests.viewOf(r.id))));
    return pageReply(ctx, query, page, { ...found, rows }, 'Collections retrieved');
  },

  getAdminCollection: async ({ path }, ctx) => ok(await adminRecordOf(ctx, path.gateway_reference), 'Collection retrieved'),

  resolveHeldCollection: async ({ path, body }, ctx) => {
    const row = await ctx.services.collections.get(path.gateway_reference, null);
    const by = ctx.actor?.type === 'user' ? ctx.actor.user.email : 'operator key';
    await ctx.services.processorRequests.resolveHeld(row.id, body.outcome, body.note, by);
    return ok(await adminRecordOf(ctx, path.gateway_reference), 'Held payment resolved');
  },

  getCertification: async ({ path }, ctx) => {
    if (ctx.services.config.appEnv !== 'sandbox') throw new AppError('NOT_FOUND', 'Certification is kept by the sandbox deployment');
    return ok(await certificationOf(ctx.services.db, Number(path.business_id)), 'Certification retrieved');
  },
});
