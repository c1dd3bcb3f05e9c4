import { AppError } from '../../errors';
import { certificationOf } from '../../sandbox/certification';
import { SERVICE_ACCOUNTS, toAdminRecord } from '../../api-records/collection';
import type { CollectionRow } from '../../domain/collection';
import { toRefundSummary } from '../../api-records/refund';
import { merchantUser } from '../context';
import type { RequestContext } from '../context';
import { ok } from '../envelope';
import { pageOf, pageReply } from '../paging';
import { typedHandlers } from '../typed';
import { filtersOf } from './collections';

/**
 * The admin records of these rows: operators see every posting, the processor request and the checkout;
 * a merchant's own people see the postings of their wallets only and nothing of the processor side.
 */
async function adminRecordsOf(ctx: RequestContext, rows: CollectionRow[]) {
  const { collections, processorRequests, checkouts, businesses } = ctx.services;
  const ids = rows.map((r) => r.id);
  const operator = !merchantUser(ctx);
  // a page's worth of records in four reads, whatever its length; one after another, as an audited
  // operation runs them in its one transaction
  const none = new Map<bigint, never>();
  const names = await businesses.namesOf(rows.map((r) => r.business_id));
  const postings = await collections.postingsOf(ids);
  const requests = operator ? await processorRequests.viewsOf(ids) : none;
  const views = operator ? await checkouts.viewsOf(ids) : none;
  return rows.map((row) => {
    const own = postings.get(row.id) ?? [];
    return toAdminRecord(row, {
      businessName: names.get(row.business_id) ?? '',
      postings: operator ? own : own.filter((p) => !SERVICE_ACCOUNTS.includes(p.account)),
      processorRequest: requests.get(row.id) ?? null,
      checkout: views.get(row.id) ?? null,
    });
  });
}

/** One collection of any business with its operator details and its refunds in short (the list has no refunds). */
async function adminRecordOf(ctx: RequestContext, gatewayReference: string) {
  const row = await ctx.services.collections.get(gatewayReference, null);
  const [record] = await adminRecordsOf(ctx, [row]);
  const refunds = await ctx.services.refunds.ofCollection(row.id);
  return { ...record, refunds: refunds.map(toRefundSummary) };
}

export const merchant = {};
export const admin = typedHandlers({
  listAdminCollections: async ({ query }, ctx) => {
    const page = pageOf(query);
    const filters = { ...filtersOf(query), gateway_reference: query.gateway_reference, account_number: query.account_number };
    // an operator's filter on a business that does not exist is a mistake to say, not an empty page
    if (filters.business_id !== undefined && !merchantUser(ctx)) await ctx.services.businesses.getBusiness(filters.business_id);
    const found = await ctx.services.collections.list(filters, page);
    return pageReply(ctx, query, page, { ...found, rows: await adminRecordsOf(ctx, found.rows) }, 'Collections retrieved');
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
