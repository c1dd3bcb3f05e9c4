import { AppError } from '../../errors';
import { toRecord } from '../../api-records/collection';
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
});
export const admin = {};
