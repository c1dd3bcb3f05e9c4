// What the dashboard needs around a business that the operator API lacked (issue 17): the go-live
// request, balances with release dates, a collection's webhook log and its re-send.
import type { Context } from 'openapi-backend';
import { AppError } from '../../errors';
import { callerName } from '../context';
import type { Handler, RequestContext } from '../context';
import { accepted, ok } from '../envelope';
import { pagedReply } from '../paging';

const businessId = (c: Context) => Number(c.request.params.business_id);
const reference = (c: Context) => String(c.request.params.gateway_reference);

/** The business and API token behind a collection, whoever asks (the security handler confined merchants). */
async function collectionOwner(c: Context, ctx: RequestContext) {
  const row = await ctx.services.db.oneOrNone<{ business_id: number; api_token_id: number | null }>(
    'SELECT business_id, api_token_id FROM collections WHERE gateway_reference = $1',
    [reference(c)],
  );
  if (!row) throw new AppError('NOT_FOUND', 'No collection has this gateway_reference');
  return row;
}

const requestGoLive: Handler = async (c, ctx) => {
  const note = (c.request.requestBody as { note?: string } | undefined)?.note ?? null;
  return ok(await ctx.services.goLive.request(businessId(c), callerName(ctx), note), 'Go-live requested; the operator will review your test cases');
};

const listGoLiveRequests: Handler = (c, ctx) =>
  pagedReply(ctx, c.request.query as Record<string, unknown>, 'Go-live requests retrieved', (page) => ctx.services.goLive.pending(page));

const listBusinessBalances: Handler = async (c, ctx) => ok(await ctx.services.goLive.balances(businessId(c)), 'Balances retrieved');

const listAdminCollectionNotifications: Handler = async (c, ctx) => {
  const owner = await collectionOwner(c, ctx);
  return ok(await ctx.services.notifications.logOf(owner.business_id, reference(c)), 'Notifications retrieved');
};

const resendAdminNotification: Handler = async (c, ctx) => {
  const owner = await collectionOwner(c, ctx);
  if (owner.api_token_id === null) throw new AppError('INVALID_STATE', "The collection's API token was deleted: there is no webhook to send to");
  return accepted(await ctx.services.notifications.resend(owner.business_id, owner.api_token_id, reference(c)), 'Notification re-send queued');
};

export const merchant: Record<string, Handler> = {};
export const admin: Record<string, Handler> = { requestGoLive, listGoLiveRequests, listBusinessBalances, listAdminCollectionNotifications, resendAdminNotification };
