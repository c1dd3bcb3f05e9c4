import type { Handler } from '../context';
import { principalOf } from '../context';
import { accepted, ok } from '../envelope';
import { pageHeaders, pageOf } from '../paging';

const listCollectionNotifications: Handler = async (c, ctx) => {
  const entries = await ctx.services.notifications.logOf(principalOf(ctx).businessId, String(c.request.params.gateway_reference));
  return ok(entries, 'Notifications retrieved');
};

const resendNotification: Handler = async (c, ctx) => {
  const { businessId, apiTokenId } = principalOf(ctx);
  const entry = await ctx.services.notifications.resend(businessId, apiTokenId, String(c.request.params.gateway_reference));
  return accepted(entry, 'Notification re-send queued');
};

const listFailingWebhooks: Handler = async (c, ctx) => {
  const query = c.request.query as Record<string, unknown>;
  const page = pageOf(query);
  const { items, total } = await ctx.services.notifications.failing(page.perPage, page.offset);
  const headers = pageHeaders(ctx.services.config.publicBaseUrl, '/v1/admin/webhooks/failing', query, page, total);
  return ok(items, 'Failing webhooks retrieved', headers);
};

export const merchant: Record<string, Handler> = { listCollectionNotifications, resendNotification };
export const admin: Record<string, Handler> = { listFailingWebhooks };
