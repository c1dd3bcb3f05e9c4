// Operator API: business accounts, wallets, MIDs, API tokens, market rates, go-live verification.
import type { Context } from 'openapi-backend';
import type { ApiTokenInput, ApiTokenPatch, BusinessInput, BusinessPatch, Listed, MidInput, MidPatch } from '../../services/merchants';
import type { Handler, RequestContext } from '../context';
import { ok } from '../envelope';
import type { Reply } from '../envelope';
import { pageHeaders, pageOf } from '../paging';

function idParam(c: Context, name: string): number {
  return Number(c.request.params[name]);
}

function body<T>(c: Context): T {
  return c.request.requestBody as T;
}

/** A paged list: the service gets limit/offset, the answer gets X-PH-* and Link on PUBLIC_BASE_URL. */
async function paged<T>(
  c: Context,
  ctx: RequestContext,
  message: string,
  load: (slice: { limit: number; offset: number }) => Promise<Listed<T>>,
): Promise<Reply> {
  const query = c.request.query as Record<string, unknown>;
  const page = pageOf(query);
  const { items, total } = await load({ limit: page.perPage, offset: page.offset });
  const path = ctx.req.path;
  return ok(items, message, pageHeaders(ctx.services.config.publicBaseUrl, path, query, page, total));
}

const createBusiness: Handler = async (c, ctx) =>
  ok(await ctx.services.merchants.createBusiness(body<BusinessInput>(c)), 'Business created');

const listBusinesses: Handler = (c, ctx) =>
  paged(c, ctx, 'Businesses retrieved', (slice) => ctx.services.merchants.listBusinesses(slice));

const getBusiness: Handler = async (c, ctx) =>
  ok(await ctx.services.merchants.getBusiness(idParam(c, 'business_id')), 'Business retrieved');

const updateBusiness: Handler = async (c, ctx) =>
  ok(await ctx.services.merchants.updateBusiness(idParam(c, 'business_id'), body<BusinessPatch>(c)), 'Business updated');

const verifyBusiness: Handler = async (c, ctx) => {
  const { verified_by, note } = body<{ verified_by: string; note?: string }>(c);
  return ok(await ctx.services.merchants.verifyBusiness(idParam(c, 'business_id'), verified_by, note), 'Business verified');
};

const createWallet: Handler = async (c, ctx) => {
  const { currency, is_default } = body<{ currency: string; is_default?: boolean }>(c);
  return ok(await ctx.services.merchants.createWallet(idParam(c, 'business_id'), currency, is_default ?? false), 'Wallet created');
};

const listWallets: Handler = (c, ctx) =>
  paged(c, ctx, 'Wallets retrieved', (slice) => ctx.services.merchants.listWallets(idParam(c, 'business_id'), slice));

const createMid: Handler = async (c, ctx) =>
  ok(await ctx.services.merchants.createMid(idParam(c, 'business_id'), body<MidInput>(c)), 'MID created');

const listMids: Handler = (c, ctx) =>
  paged(c, ctx, 'MIDs retrieved', (slice) => ctx.services.merchants.listMids(idParam(c, 'business_id'), slice));

const updateMid: Handler = async (c, ctx) =>
  ok(await ctx.services.merchants.updateMid(idParam(c, 'mid_id'), body<MidPatch>(c)), 'MID updated');

const SECRET_SHOWN_ONCE = 'store the secret now, it is not shown again';

const createApiToken: Handler = async (c, ctx) =>
  ok(
    await ctx.services.merchants.createApiToken(idParam(c, 'business_id'), body<ApiTokenInput>(c)),
    `API token created; ${SECRET_SHOWN_ONCE}`,
  );

const listApiTokens: Handler = (c, ctx) =>
  paged(c, ctx, 'API tokens retrieved', (slice) => ctx.services.merchants.listApiTokens(idParam(c, 'business_id'), slice));

const updateApiToken: Handler = async (c, ctx) =>
  ok(await ctx.services.merchants.updateApiToken(idParam(c, 'token_id'), body<ApiTokenPatch>(c)), 'API token updated');

const regenerateApiToken: Handler = async (c, ctx) =>
  ok(await ctx.services.merchants.regenerateApiToken(idParam(c, 'token_id')), `API token regenerated; ${SECRET_SHOWN_ONCE}`);

const deleteApiToken: Handler = async (c, ctx) => {
  await ctx.services.merchants.deleteApiToken(idParam(c, 'token_id'));
  return ok(null, 'API token deleted');
};

const setFxRate: Handler = async (c, ctx) => {
  const { base, quote, rate } = body<{ base: string; quote: string; rate: number }>(c);
  return ok(await ctx.services.merchants.setFxRate(base, quote, rate), 'Market rate set');
};

const listFxRates: Handler = (c, ctx) => paged(c, ctx, 'Market rates retrieved', (slice) => ctx.services.merchants.listFxRates(slice));

export const merchant: Record<string, Handler> = {};
export const admin: Record<string, Handler> = {
  createBusiness,
  listBusinesses,
  getBusiness,
  updateBusiness,
  verifyBusiness,
  createWallet,
  listWallets,
  createMid,
  listMids,
  updateMid,
  createApiToken,
  listApiTokens,
  updateApiToken,
  regenerateApiToken,
  deleteApiToken,
  setFxRate,
  listFxRates,
};
