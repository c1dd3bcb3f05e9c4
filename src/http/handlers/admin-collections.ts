import { AppError } from '../../errors';
import { certificationOf } from '../../services/certification';
import { toAdminRecord } from '../../services/collection-view';
import type { Handler } from '../context';
import { ok } from '../envelope';
import { pageHeaders, pageOf } from '../paging';
import { filtersOf } from './collections';

const listAdminCollections: Handler = async (c, ctx) => {
  const query = c.request.query as Record<string, unknown>;
  const page = pageOf(query);
  const collections = ctx.services.collections;
  const { rows, total } = await collections.list(filtersOf(query), page);
  const requests = ctx.services.processorRequests;
  const records = await Promise.all(rows.map(async (r) => toAdminRecord(r, await collections.postingsOf(r.id), await requests.viewOf(r.id))));
  const headers = pageHeaders(ctx.services.config.publicBaseUrl, '/v1/admin/collections', query, page, total);
  return ok(records, 'Collections retrieved', headers);
};

const getAdminCollection: Handler = async (c, ctx) => {
  const collections = ctx.services.collections;
  const row = await collections.get(String(c.request.params.gateway_reference), null);
  const request = await ctx.services.processorRequests.viewOf(row.id);
  return ok(toAdminRecord(row, await collections.postingsOf(row.id), request), 'Collection retrieved');
};

const getCertification: Handler = async (c, ctx) => {
  if (ctx.services.config.appEnv !== 'sandbox') throw new AppError('NOT_FOUND', 'Certification is kept by the sandbox deployment');
  const businessId = Number(c.request.params.business_id);
  return ok(await certificationOf(ctx.services.db, businessId), 'Certification retrieved');
};

export const merchant: Record<string, Handler> = {};
export const admin: Record<string, Handler> = { listAdminCollections, getAdminCollection, getCertification };
