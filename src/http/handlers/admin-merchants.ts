// Operator API: business accounts, wallets, MIDs, API tokens, market rates, go-live verification.
import { AppError } from '../../errors';
import { callerName, merchantUser } from '../context';
import type { Requester } from '../../merchants/guard-changes';
import type { RequestContext } from '../context';
import { ok } from '../envelope';
import { pagedReply } from '../paging';
import { typedHandlers } from '../typed';

const SECRET_SHOWN_ONCE = 'store the secret now, it is not shown again';

/** The allowlist guards money out: a developer may set a token's notifications, only an owner its addresses. */
function refuseDeveloperAllowlist(body: { ip_allowlist?: unknown }, ctx: RequestContext): void {
  if (body.ip_allowlist !== undefined && ctx.actor?.type === 'user' && ctx.actor.user.role === 'merchant_developer') {
    throw new AppError('FORBIDDEN', 'Only an owner of the business sets an API token\'s IP allowlist');
  }
}

/** Who asks for a change of a guard of money out, as its scheduled change and the owners' email name them. */
function requesterOf(ctx: RequestContext): Requester {
  return ctx.actor?.type === 'user' ? { userId: ctx.actor.user.id, name: ctx.actor.user.email } : { userId: null, name: callerName(ctx) };
}

/** The answer's message: what applied, and when a loosening that waits takes effect. */
function scheduledMessage(what: string, scheduled: { field: string; effective_at: string }[], fields: string[]): string {
  const waiting = scheduled.filter((c) => fields.includes(c.field));
  if (waiting.length === 0) return `${what} updated`;
  return `${what} updated; ${waiting.map((c) => `${c.field.replaceAll('_', ' ')} takes effect at ${c.effective_at}`).join(', ')} (a loosened guard of money out waits for its notice, every owner told)`;
}

export const merchant = {};
export const admin = typedHandlers({
  createBusiness: async ({ body }, ctx) => ok(await ctx.services.businesses.createBusiness(body), 'Business created'),

  listBusinesses: ({ query }, ctx) => pagedReply(ctx, query, 'Businesses retrieved', (page) => ctx.services.businesses.listBusinesses(page)),

  getBusiness: async ({ path }, ctx) => ok(await ctx.services.businesses.getBusiness(Number(path.business_id)), 'Business retrieved'),

  updateBusiness: async ({ path, body }, ctx) =>
    ok(await ctx.services.businesses.updateBusiness(Number(path.business_id), body), 'Business updated'),

  // who verified is the caller, never a name in the body (its deprecated verified_by is ignored)
  verifyBusiness: async ({ path, body }, ctx) =>
    ok(await ctx.services.businesses.verifyBusiness(Number(path.business_id), callerName(ctx), body.note), 'Business verified'),

  createWallet: async ({ path, body }, ctx) =>
    ok(await ctx.services.businesses.createWallet(Number(path.business_id), body.currency, body.is_default ?? false), 'Wallet created'),

  listWallets: ({ path, query }, ctx) =>
    pagedReply(ctx, query, 'Wallets retrieved', (page) => ctx.services.businesses.listWallets(Number(path.business_id), page)),

  createMid: async ({ path, body }, ctx) => ok(await ctx.services.mids.createMid(Number(path.business_id), body), 'MID created'),

  listMids: ({ path, query }, ctx) => pagedReply(ctx, query, 'MIDs retrieved', (page) => ctx.services.mids.listMids(Number(path.business_id), page)),

  updateMid: async ({ path, body }, ctx) => ok(await ctx.services.mids.updateMid(Number(path.mid_id), body), 'MID updated'),

  createApiToken: async ({ path, body }, ctx) => {
    refuseDeveloperAllowlist(body, ctx);
    return ok(await ctx.services.apiTokens.createApiToken(Number(path.business_id), body, requesterOf(ctx)), `API token created; ${SECRET_SHOWN_ONCE}`);
  },

  listApiTokens: ({ path, query }, ctx) =>
    pagedReply(ctx, query, 'API tokens retrieved', (page) => ctx.services.apiTokens.listApiTokens(Number(path.business_id), page)),

  updateWallet: async ({ path, body }, ctx) => {
    // the limits are the operator's; an owner sets the business's own approval threshold
    if (merchantUser(ctx) && (body.disbursement_limit !== undefined || body.disbursement_daily_limit !== undefined)) {
      throw new AppError('FORBIDDEN', 'Only the operator sets disbursement limits; an owner sets the approval threshold');
    }
    const { wallet, scheduled } = await ctx.services.businesses.updateWallet(Number(path.business_id), path.currency, body, requesterOf(ctx));
    const fields = scheduled.map((f) => f.replace(/_minor$/, ''));
    return ok(wallet, scheduledMessage('Wallet', wallet.scheduled_changes, fields));
  },
  updateApiToken: async ({ path, body }, ctx) => {
    refuseDeveloperAllowlist(body, ctx);
    const token = await ctx.services.apiTokens.updateApiToken(Number(path.token_id), body, requesterOf(ctx));
    return ok(token, scheduledMessage('API token', body.ip_allowlist === undefined ? [] : token.scheduled_changes, ['ip_allowlist']));
  },

  regenerateApiToken: async ({ path }, ctx) =>
    ok(await ctx.services.apiTokens.regenerateApiToken(Number(path.token_id), requesterOf(ctx)), `API token regenerated; ${SECRET_SHOWN_ONCE}`),

  deleteApiToken: async ({ path }, ctx) => {
    await ctx.services.apiTokens.deleteApiToken(Number(path.token_id));
    return ok(null, 'API token deleted');
  },

  setFxRate: async ({ body }, ctx) => ok(await ctx.services.fxRates.setFxRate(body.base, body.quote, body.rate), 'Market rate set'),

  listFxRates: ({ query }, ctx) => pagedReply(ctx, query, 'Market rates retrieved', (page) => ctx.services.fxRates.listFxRates(page)),

  getFxRateWatch: async (_request, ctx) => ok(await ctx.services.rateJumps.watch(), 'Market rates retrieved'),

  acceptFxRateJump: async ({ path, body }, ctx) =>
    ok(await ctx.services.rateJumps.decide(path.base, path.quote, 'accepted', body.rate, callerName(ctx)), 'Rate jump accepted: the held rate is in use'),

  refuseFxRateJump: async ({ path, body }, ctx) =>
    ok(await ctx.services.rateJumps.decide(path.base, path.quote, 'refused', body.rate, callerName(ctx)), 'Rate jump refused: the rate in use is kept'),
});
