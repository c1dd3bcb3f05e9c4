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
    const found = await collections.list(filtersOf(query), page);
    const rows = await Promise.all(found.rows.map(async (r) => toAdminRecord(r, await collections.postingsOf(r.id))));
    return pageReply(ctx, query, page, { ...found, rows }, 'Collections retrieved');
  },

  getAdminCollection: async ({ path }, ctx) => {
    const collections = ctx.services.collections;
    const row = await collections.get(path.gateway_reference, null);
    return ok(toAdminRecord(row, await collections.postingsOf(row.id)), 'Collection retrieved');
  },

  getCertification: async ({ path }, ctx) => {
    if (ctx.services.config.appEnv !== 'sandbox') throw new AppError('NOT_FOUND', 'Certification is kept by the sandbox deployment');
    return ok(await certificationOf(ctx.services.db, Number(path.business_id)), 'Certification retrieved');
  },
});
