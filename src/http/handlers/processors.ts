// Live processors: their callbacks (prompts to query, outside /v1/) and the operator's credential check.
import type { RawBodyRequest } from '../app';
import type { RequestContext } from '../context';
import { ok } from '../envelope';
import { typedHandlers } from '../typed';
import type { Input, Operations, TypedReply } from '../typed';

type Callback = Operations['receiveProcessorCallback'];

/** A prompt to ask the processor, never proof by itself; the PUT form takes the same path and body. */
async function receiveProcessorCallback({ path, body }: Input<Callback>, ctx: RequestContext): Promise<TypedReply<Callback>> {
  await ctx.services.processorRequests.prompt(path.service_type, path.callback_token, body);
  return ok(null, 'Callback received');
}

export const merchant = typedHandlers({});
export const admin = typedHandlers({
  receiveProcessorCallback,
  receiveProcessorCallbackPut: receiveProcessorCallback,
  /** A signed webhook (Paystack, BTCPay): checked on the raw bytes with the MID's credentials. */
  receiveProcessorWebhook: async ({ path }, ctx) => {
    const raw = (ctx.req as RawBodyRequest).rawBody ?? Buffer.alloc(0);
    await ctx.services.checkouts.webhook(path.service_type, Number(path.mid_id), raw, (name) => ctx.req.header(name));
    return ok(null, 'Webhook received');
  },
  checkMidCredentials: async ({ path }, ctx) => ok(await ctx.services.mids.checkMidCredentials(Number(path.mid_id)), 'Credentials checked'),
});
