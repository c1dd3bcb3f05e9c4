import type { FinalStatus } from '../../domain/collection';
import { AppError } from '../../errors';
import { toRecord } from '../../services/collection-view';
import { sandboxScenarios } from '../../services/scenarios';
import type { Handler, RequestContext } from '../context';
import { principalOf } from '../context';
import { ok } from '../envelope';

/** The sandbox tools do not exist in live. */
function sandboxOnly(ctx: RequestContext) {
  if (ctx.services.config.appEnv !== 'sandbox') throw new AppError('NOT_FOUND', 'Sandbox tools exist only in the sandbox');
}

const listSandboxScenarios: Handler = async (_c, ctx) => {
  sandboxOnly(ctx);
  return ok(sandboxScenarios(ctx.services.config), 'Sandbox scenarios retrieved');
};

const simulateCollection: Handler = async (c, ctx) => {
  sandboxOnly(ctx);
  const { outcome } = c.request.requestBody as { outcome: FinalStatus };
  const row = await ctx.services.collections.simulate(principalOf(ctx), String(c.request.params.gateway_reference), outcome);
  return ok(toRecord(row), `Collection moved to ${row.status}`);
};

export const merchant: Record<string, Handler> = { listSandboxScenarios, simulateCollection };
export const admin: Record<string, Handler> = {};
