import { AppError } from '../../errors';
import { certificationOf } from '../../services/certification';
import { toAdminRecord } from '../../services/collection-view';
import { ok } from '../envelope';
import { pageOf, pageReply } from '../paging';
import { typedHandlers } from '../typed';
import { filtersOf } from './collections';

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

  getAdminCollection: async ({ path }, ctx) => {
    const collections = ctx.services.collections;
    const row = await collections.get(path.gateway_reference, null);
    const request = await ctx.services.processorRequests.viewOf(row.id);
    return ok(toAdminRecord(row, await collections.postingsOf(row.id), request), 'Collection retrieved');
  },

  getCertification: async ({ path }, ctx) => {
    if (ctx.services.config.appEnv !== 'sandbox') throw new AppError('NOT_FOUND', 'Certification is kept by the sandbox deployment');
    return ok(await certificationOf(ctx.services.db, Number(path.business_id)), 'Certification retrieved');
  },
});
