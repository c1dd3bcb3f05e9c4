import { AppError } from '../../errors';
import { toRecord } from '../../api-records/collection';
import { apiTime } from '../../domain/time';
import { sandboxScenarios } from '../../sandbox/scenarios';
import type { RequestContext } from '../context';
import { principalOf } from '../context';
import { ok } from '../envelope';
import { typedHandlers } from '../typed';

/** The sandbox tools do not exist in live. */
function sandboxOnly(ctx: RequestContext) {
  if (ctx.services.config.appEnv !== 'sandbox') throw new AppError('NOT_FOUND', 'Sandbox tools exist only in the sandbox');
}

export const merchant = typedHandlers({
  listSandboxScenarios: async (_input, ctx) => {
    sandboxOnly(ctx);
    return ok(sandboxScenarios(ctx.services.config), 'Sandbox scenarios retrieved');
  },

  simulateCollection: async ({ path, body }, ctx) => {
    sandboxOnly(ctx);
    const row = await ctx.services.collections.simulate(principalOf(ctx), path.gateway_reference, body.outcome);
    return ok(toRecord(row), `Collection moved to ${row.status}`);
  },

  /** The business's sandbox clock forward, then its open disputes read again (src/sandbox/disputes.ts). */
  advanceSandboxClock: async ({ body }, ctx) => {
    sandboxOnly(ctx);
    const businessId = principalOf(ctx).businessId;
    const clock = await ctx.services.sandboxDisputes.advance(businessId, body.advance_hours);
    const moved = await ctx.services.disputes.reread(businessId);
    return ok({ now: apiTime(clock.now), ahead_hours: clock.aheadSeconds / 3600, disputes_moved: moved }, 'Sandbox clock moved');
  },
});
export const admin = {};
