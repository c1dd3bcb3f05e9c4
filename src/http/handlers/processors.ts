// Live processors: their callbacks (prompts to query, outside /v1/) and the operator's credential check.
import type { Handler } from '../context';
import { ok } from '../envelope';

const receiveProcessorCallback: Handler = async (c, ctx) => {
  const { service_type, callback_token } = c.request.params as Record<string, string>;
  await ctx.services.processorRequests.prompt(service_type, callback_token, c.request.requestBody);
  return ok(null, 'Callback received');
};

const checkMidCredentials: Handler = async (c, ctx) =>
  ok(await ctx.services.processorRequests.checkMidCredentials(Number(c.request.params.mid_id)), 'Credentials checked');

export const merchant: Record<string, Handler> = {};
export const admin: Record<string, Handler> = {
  receiveProcessorCallback,
  receiveProcessorCallbackPut: receiveProcessorCallback,
  checkMidCredentials,
};
