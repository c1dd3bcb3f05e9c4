// Disbursements (docs/contract/disbursements.md): pay out of a wallet, read one, list them. Every
// merchant API call hands the service the Secret-Key header and the client's address (the TCP peer's, or
// behind a proxy named by TRUST_PROXY the one it forwarded) for its guard; in the dashboard an owner asks with a fresh
// authenticator code instead (docs/contract/disbursements-dashboard.md). The disbursement service does the work.
import { parseApiTime } from '../../domain/time';
import type { DisbursementStatus } from '../../domain/disbursement';
import type { DisbursementFilters } from '../../disbursements/filters';
import type { DisbursementCaller } from '../../disbursements';
import { toDisbursementRecord } from '../../api-records/disbursement';
import { AppError } from '../../errors';
import { clientAddress, merchantUser, principalOf } from '../context';
import type { RequestContext } from '../context';
import { accepted, ok } from '../envelope';
import { pageOf, pageReply } from '../paging';
import { typedHandlers } from '../typed';
import type { Operations, QueryOf } from '../typed';

type DisbursementQuery = Pick<QueryOf<Operations['listDisbursements']>, 'status' | 'currency' | 'merchant_reference' | 'from' | 'to'>;

/** The disbursement list's filters (validated by the contract), as the lists and the disbursements exports apply them. */
export function disbursementFiltersOf(q: DisbursementQuery & { business_id?: string | number }): DisbursementFilters {
  const date = (v: string | undefined) => (v === undefined ? undefined : parseApiTime(v));
  return {
    status: q.status as DisbursementStatus | undefined,
    currency: q.currency,
    merchant_reference: q.merchant_reference,
    from: date(q.from),
    to: date(q.to),
    business_id: q.business_id === undefined ? undefined : Number(q.business_id),
  };
}

/** An operator's filter on a business that does not exist is a mistake to say, not an empty answer. */
export async function checkBusinessFilter(ctx: RequestContext, businessId: number | undefined): Promise<void> {
  if (businessId !== undefined && !merchantUser(ctx)) await ctx.services.businesses.getBusiness(businessId);
}

export function callerOf(ctx: RequestContext): DisbursementCaller {
  const p = principalOf(ctx);
  return { businessId: p.businessId, apiTokenId: p.apiTokenId, secret: ctx.req.header('secret-key'), address: clientAddress(ctx), requestId: ctx.requestId };
}

export const merchant = typedHandlers({
  createDisbursement: async ({ body }, ctx) => {
    const { row, replayed } = await ctx.services.disbursements.create(callerOf(ctx), body);
    return accepted(toDisbursementRecord(row), replayed ? 'Disbursement already accepted' : 'Disbursement accepted', replayed ? { 'Idempotent-Replayed': 'true' } : undefined);
  },

  getDisbursement: async ({ path }, ctx) => ok(toDisbursementRecord(await ctx.services.disbursements.get(callerOf(ctx), path.gateway_reference)), 'Disbursement retrieved'),

  listDisbursements: async ({ query }, ctx) => {
    const page = pageOf(query);
    const found = await ctx.services.disbursements.list(callerOf(ctx), disbursementFiltersOf(query), page);
    return pageReply(ctx, query, page, { ...found, rows: found.rows.map(toDisbursementRecord) }, 'Disbursements retrieved');
  },
});
/**
 * Four eyes: only a signed-in owner of the disbursement's business decides (the access layer confined a
 * merchant user to its own business); an approval also takes the owner's current authenticator code
 * (`code`), checked by the second-factor service once the approval is otherwise allowed.
 */
async function decision(ctx: RequestContext, reference: string, code: string | null) {
  const actor = ctx.actor;
  if (actor?.type !== 'user' || actor.user.role !== 'merchant_owner' || actor.user.business_id === null) {
    throw new AppError('FORBIDDEN', 'Only an owner of the business approves or rejects its disbursements');
  }
  const approve = code !== null;
  const confirmCode = () => ctx.services.totp.confirmFresh(actor, code ?? '', 'approvalCodeRefused', { operation: 'approveDisbursement', disbursement_reference: reference });
  const row = await ctx.services.disbursements.decide(reference, { businessId: actor.user.business_id, userId: actor.user.id, approve, ownerSince: actor.user.owner_since, confirmCode });
  return ok(toDisbursementRecord(row), approve ? 'Disbursement approved' : 'Disbursement rejected');
}

export const admin = typedHandlers({
  /** The dashboard's New disbursement: a signed-in owner of the business, whose current authenticator code stands in for the API token's secret. */
  createAdminDisbursement: async ({ body }, ctx) => {
    const actor = ctx.actor;
    if (actor?.type !== 'user' || actor.user.business_id === null || actor.user.role !== 'merchant_owner') {
      throw new AppError('FORBIDDEN', "Only an owner of the business asks for its disbursements; operators do not move merchants' money");
    }
    const { code, ...asked } = body;
    await ctx.services.totp.confirmFresh(actor, code, 'disbursementCodeRefused', {
      operation: 'createAdminDisbursement', merchant_reference: asked.merchant_reference, amount: String(asked.amount), currency: asked.currency,
    });
    const who = { businessId: actor.user.business_id, userId: actor.user.id, requestId: ctx.requestId };
    const { row, replayed } = await ctx.services.disbursements.requestFromDashboard(who, asked);
    const record = await ctx.services.adminDisbursements.recordOf(row);
    return accepted(record, replayed ? 'Disbursement already accepted' : 'Disbursement accepted', replayed ? { 'Idempotent-Replayed': 'true' } : undefined);
  },
  listAdminDisbursements: async ({ query }, ctx) => {
    const page = pageOf(query);
    const filters = disbursementFiltersOf(query);
    await checkBusinessFilter(ctx, filters.business_id);
    return pageReply(ctx, query, page, await ctx.services.adminDisbursements.list(filters, page), 'Disbursements retrieved');
  },
  getAdminDisbursement: async ({ path }, ctx) => ok(await ctx.services.adminDisbursements.get(path.disbursement_reference), 'Disbursement retrieved'),
  approveDisbursement: async ({ path, body }, ctx) => decision(ctx, path.disbursement_reference, body.code),
  rejectDisbursement: async ({ path }, ctx) => decision(ctx, path.disbursement_reference, null),
});
