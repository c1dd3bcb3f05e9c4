import type { DeliveryState } from '../../notifications/business-deliveries';
import { principalOf } from '../context';
import { accepted, ok } from '../envelope';
import { pageOf, pageReply } from '../paging';
import { typedHandlers } from '../typed';

export const merchant = typedHandlers({
  listCollectionNotifications: async ({ path }, ctx) => {
    const entries = await ctx.services.notifications.logOf(principalOf(ctx).businessId, path.gateway_reference);
    return ok(entries, 'Notifications retrieved');
  },

  resendNotification: async ({ path }, ctx) => {
    const { businessId, apiTokenId } = principalOf(ctx);
    return accepted(await ctx.services.notifications.resend(businessId, apiTokenId, path.gateway_reference), 'Notification re-send queued');
  },
});

export const admin = typedHandlers({
  listFailingWebhooks: async ({ query }, ctx) => {
    const page = pageOf(query);
    return pageReply(ctx, query, page, await ctx.services.notifications.failing(page), 'Failing webhooks retrieved');
  },

  listBusinessDeliveries: async ({ path, query }, ctx) => {
    const page = pageOf(query);
    const deliveries = await ctx.services.notifications.deliveriesOf(Number(path.business_id), (query.state ?? null) as DeliveryState | null, page);
    return pageReply(ctx, query, page, deliveries, 'Deliveries retrieved');
  },
});
