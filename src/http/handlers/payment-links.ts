// Payment links (docs/contract/payment-links.md): a merchant's links to share, each read with its counts.
import { adminPaymentLinkRecord, paymentLinkRecord } from '../../api-records/payment-link';
import type { CountedPaymentLinkRow } from '../../api-records/payment-link';
import { AppError } from '../../errors';
import { merchantUser, principalOf } from '../context';
import type { RequestContext } from '../context';
import { ok } from '../envelope';
import { pageOf, pageReply } from '../paging';
import { typedHandlers } from '../typed';

const record = (ctx: RequestContext, row: CountedPaymentLinkRow) => paymentLinkRecord(row, ctx.services.config.publicBaseUrl);
const adminRecord = (ctx: RequestContext, row: CountedPaymentLinkRow) => adminPaymentLinkRecord(row, ctx.services.config.publicBaseUrl);

export const merchant = typedHandlers({
  createPaymentLink: async ({ body }, ctx) => ok(record(ctx, await ctx.services.paymentLinks.create(principalOf(ctx), body)), 'Payment link created'),

  getPaymentLink: async ({ path }, ctx) => ok(record(ctx, await ctx.services.paymentLinks.get(principalOf(ctx).businessId, path.link_id)), 'Payment link retrieved'),

  listPaymentLinks: async ({ query }, ctx) => {
    const page = pageOf(query);
    const found = await ctx.services.paymentLinks.list(principalOf(ctx).businessId, page);
    return pageReply(ctx, query, page, { ...found, rows: found.rows.map((r) => record(ctx, r)) }, 'Payment links retrieved');
  },

  deactivatePaymentLink: async ({ path, body }, ctx) =>
    ok(record(ctx, await ctx.services.paymentLinks.deactivate(principalOf(ctx).businessId, path.link_id, body.message)), 'Payment link deactivated'),

  reactivatePaymentLink: async ({ path }, ctx) => ok(record(ctx, await ctx.services.paymentLinks.reactivate(principalOf(ctx).businessId, path.link_id)), 'Payment link reactivated'),
});
export const admin = typedHandlers({
  /** The dashboard's New payment link: the signed-in person's own business, under the API token they chose (the role rule let owners and developers through). */
  createAdminPaymentLink: async ({ body }, ctx) => {
    const actor = ctx.actor;
    if (actor?.type !== 'user' || actor.user.business_id === null) {
      throw new AppError('FORBIDDEN', "Only a business's own owners and developers make its payment links, under one of its API tokens");
    }
    const { api_token_id: apiTokenId, ...link } = body;
    return ok(adminRecord(ctx, await ctx.services.paymentLinks.createUnderToken(actor.user.business_id, apiTokenId, link)), 'Payment link created');
  },

  listAdminPaymentLinks: async ({ query }, ctx) => {
    const page = pageOf(query);
    const businessId = query.business_id === undefined ? null : Number(query.business_id);
    // an operator's filter on a business that does not exist is a mistake to say, not an empty page
    if (businessId !== null && !merchantUser(ctx)) await ctx.services.businesses.getBusiness(businessId);
    const found = await ctx.services.paymentLinks.list(businessId, page);
    return pageReply(ctx, query, page, { ...found, rows: found.rows.map((r) => adminRecord(ctx, r)) }, 'Payment links retrieved');
  },

  getAdminPaymentLink: async ({ path }, ctx) => ok(adminRecord(ctx, await ctx.services.paymentLinks.get(null, path.link_id)), 'Payment link retrieved'),

  deactivateAdminPaymentLink: async ({ path, body }, ctx) =>
    ok(adminRecord(ctx, await ctx.services.paymentLinks.deactivate(null, path.link_id, body.message)), 'Payment link deactivated'),

  reactivateAdminPaymentLink: async ({ path }, ctx) => ok(adminRecord(ctx, await ctx.services.paymentLinks.reactivate(null, path.link_id)), 'Payment link reactivated'),
});
