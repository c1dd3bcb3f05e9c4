// Live processors: their callbacks (prompts to query, outside /v1/) and the operator's credential check.
import type { RawBodyRequest } from '../app';
import type { Handler } from '../context';
import { ok } from '../envelope';

const receiveProcessorCallback: Handler = async (c, ctx) => {
  const { service_type, callback_token } = c.request.params as Record<string, string>;
  await ctx.services.processorRequests.prompt(service_type, callback_token, c.request.requestBody);
  return ok(null, 'Callback received');
};

/** A signed webhook (Paystack, BTCPay): checked on the raw bytes with the MID's credentials. */
const receiveProcessorWebhook: Handler = async (c, ctx) => {
  const { service_type, mid_id } = c.request.params as Record<string, string>;
  const raw = (ctx.req as RawBodyRequest).rawBody ?? Buffer.alloc(0);
  await ctx.services.checkouts.webhook(service_type, Number(mid_id), raw, (name) => ctx.req.header(name));
  return ok(null, 'Webhook received');
};

const checkMidCredentials: Handler = async (c, ctx) =>
  ok(await ctx.services.processorRequests.checkMidCredentials(Number(c.request.params.mid_id)), 'Credentials checked');

export const merchant: Record<string, Handler> = {};
export const admin: Record<string, Handler> = {
  receiveProcessorCallback,
  receiveProcessorCallbackPut: receiveProcessorCallback,
  receiveProcessorWebhook,
  checkMidCredentials,
};
