// What the dashboard needs around a business that the operator API lacked: the go-live
// request, balances with release dates, a collection's webhook log and its re-send.
import { AppError } from '../../errors';
import { callerName } from '../context';
import type { RequestContext } from '../context';
import { accepted, ok } from '../envelope';
import { pagedReply } from '../paging';
import { typedHandlers } from '../typed';

/** The business and API token behind a collection, whoever asks (the security handler confined merchants). */
async function collectionOwner(ctx: RequestContext, reference: string) {
  const row = await ctx.services.db.oneOrNone<{ business_id: number; api_token_id: number | null }>(
    'SELECT business_id, api_token_id FROM collections WHERE gateway_reference = $1',
    [reference],
  );
  if (!row) throw new AppError('NOT_FOUND', 'No collection has this gateway_reference');
  return row;
}

export const merchant = {};
export const admin = typedHandlers({
  requestGoLive: async ({ path, body }, ctx) =>
    ok(await ctx.services.goLive.request(Number(path.business_id), callerName(ctx), body?.note ?? null), 'Go-live requested; the operator will review your test cases'),

  listGoLiveRequests: ({ query }, ctx) => pagedReply(ctx, query, 'Go-live requests retrieved', (page) => ctx.services.goLive.pending(page)),

  listBusinessBalances: async ({ path }, ctx) => ok(await ctx.services.goLive.balances(Number(path.business_id)), 'Balances retrieved'),

  listAdminCollectionNotifications: async ({ path }, ctx) => {
    const owner = await collectionOwner(ctx, path.gateway_reference);
    return ok(await ctx.services.notifications.logOf(owner.business_id, path.gateway_reference), 'Notifications retrieved');
  },

  resendAdminNotification: async ({ path }, ctx) => {
    const owner = await collectionOwner(ctx, path.gateway_reference);
    if (owner.api_token_id === null) throw new AppError('INVALID_STATE', "The collection's API token was deleted: there is no webhook to send to");
    return accepted(await ctx.services.notifications.resend(owner.business_id, owner.api_token_id, path.gateway_reference), 'Notification re-send queued');
  },
});
