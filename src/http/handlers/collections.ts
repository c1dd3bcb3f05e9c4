import type { Status } from '../../domain/collection';
import type { PaymentMethod } from '../../domain/collection';
import type { CollectionFilters, RequestToPayBody } from '../../services/collections';
import { toRecord } from '../../services/collection-view';
import type { Handler } from '../context';
import { principalOf } from '../context';
import { accepted, ok } from '../envelope';
import { pageHeaders, pageOf } from '../paging';

const requestToPay: Handler = async (c, ctx) => {
  const { row, replayed } = await ctx.services.collections.requestToPay(principalOf(ctx), c.request.requestBody as RequestToPayBody);
  const message = replayed ? 'Collection request already accepted' : 'Collection request accepted';
  return accepted(toRecord(row), message, replayed ? { 'Idempotent-Replayed': 'true' } : undefined);
};

const getCollection: Handler = async (c, ctx) => {
  const row = await ctx.services.collections.get(String(c.request.params.gateway_reference), principalOf(ctx).businessId);
  return ok(toRecord(row), 'Collection retrieved');
};

/** Query filters of both list operations (the operator's adds business_id). */
export function filtersOf(q: Record<string, unknown>): CollectionFilters {
  const text = (k: string) => (q[k] === undefined ? undefined : String(q[k]));
  const date = (k: string) => (q[k] === undefined ? undefined : new Date(String(q[k]) + 'Z'));
  return {
    status: text('status') as Status | undefined,
    payment_method: text('payment_method') as PaymentMethod | undefined,
    currency: text('currency'),
    merchant_reference: text('merchant_reference'),
    from: date('from'),
    to: date('to'),
    business_id: q.business_id === undefined ? undefined : Number(q.business_id),
  };
}

const listCollections: Handler = async (c, ctx) => {
  const query = c.request.query as Record<string, unknown>;
  const page = pageOf(query);
  const { rows, total } = await ctx.services.collections.list({ ...filtersOf(query), business_id: principalOf(ctx).businessId }, page);
  const headers = pageHeaders(ctx.services.config.publicBaseUrl, '/v1/collections', query, page, total);
  return ok(rows.map(toRecord), 'Collections retrieved', headers);
};

export const merchant: Record<string, Handler> = { requestToPay, getCollection, listCollections };
export const admin: Record<string, Handler> = {};
