// Reconciliation with the processors' statements (docs/reconciliation.md): statements uploaded and listed,
// a MID's items per day with both sides' totals, an operator's resolution and a second operator's approval,
// the items as CSV, and the MID's settings.
import { toApi, toMinor } from '../../domain/money';
import { apiTime } from '../../domain/time';
import { itemRecord, statementRecord } from '../../reconciliation';
import type { ItemListRow } from '../../reconciliation';
import type { Sink } from '../../reports/csv';
import { AppError } from '../../errors';
import { callerName } from '../context';
import { isStreamedBody } from '../streamed-body';
import type { RequestContext } from '../context';
import { ok } from '../envelope';
import { typedHandlers } from '../typed';

const CSV = 'text/csv; charset=utf-8';

/**
 * The upload's body, as it arrives (app.ts left it unread: streamed-body.ts). Anything but a text/csv body
 * was read (or refused) by app.ts: none is no file, another type is not one.
 */
function bodyOf(ctx: RequestContext): AsyncIterable<Buffer> {
  if (isStreamedBody(ctx.req)) return ctx.req as unknown as AsyncIterable<Buffer>;
  if (ctx.req.body === undefined) throw new AppError('VALIDATION_ERROR', undefined, [{ field: 'requestBody', message: 'is required' }]);
  throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The statement is a text/csv body');
}

async function itemOf(ctx: RequestContext, midId: number, id: bigint) {
  const [row] = await ctx.services.reconciliation.items(midId, { day: null, state: null, after: id - 1n, limit: 1 });
  return itemRecord(row as ItemListRow);
}

export const merchant = typedHandlers({});

export const admin = typedHandlers({
  listReconciliationStatements: async ({ path }, ctx) =>
    ok((await ctx.services.reconciliation.statements(Number(path.mid_id))).map(statementRecord), 'Statements retrieved'),

  uploadReconciliationStatement: async ({ path }, ctx) => {
    const intake = await ctx.services.reconciliation.upload(Number(path.mid_id), bodyOf(ctx), callerName(ctx));
    const data = { statement: statementRecord(intake.statement), created: intake.created, skipped: intake.skipped };
    return ok(data, intake.created ? 'Statement taken in and matched' : 'This statement was taken in already');
  },

  listReconciliationItems: async ({ path, query }, ctx) => {
    const rows = await ctx.services.reconciliation.items(Number(path.mid_id), { day: query.day ?? null, state: query.state ?? null, after: BigInt(query.after ?? 0), limit: Number(query.limit ?? 100) });
    let totals = null;
    if (query.day) {
      const t = await ctx.services.reconciliation.dayTotals(Number(path.mid_id), query.day);
      const currencies = t.currencies.map((c) => ({ currency: c.currency, theirs_amount: toApi(c.theirs_minor), ours_amount: toApi(c.ours_minor) }));
      totals = { currencies, states: t.states };
    }
    return ok({ items: rows.map(itemRecord), totals }, 'Reconciliation items retrieved');
  },

  exportReconciliationItems: async ({ path, query }, ctx) => {
    // the MID is checked before the file starts: a missing one is NOT_FOUND, not an empty file
    await ctx.services.reconciliation.midExists(Number(path.mid_id));
    const filename = `reconciliation-mid-${Number(path.mid_id)}-${query.day ?? apiTime(ctx.services.now()).slice(0, 10)}.csv`;
    return {
      body: '', contentType: CSV, headers: { 'Content-Disposition': `attachment; filename="${filename}"` },
      stream: (sink: Sink) => ctx.services.reconciliation.writeCsv(Number(path.mid_id), { day: query.day ?? null, state: query.state ?? null }, sink),
    };
  },

  resolveReconciliationItem: async ({ path, body }, ctx) => {
    const row = await ctx.services.reconciliation.resolve(Number(path.mid_id), BigInt(path.item_id), body, callerName(ctx));
    return ok(await itemOf(ctx, Number(path.mid_id), row.id), row.resolution === 'resolved' ? 'Item resolved' : 'Resolution recorded: it waits for a second operator\'s approval');
  },

  approveReconciliationItem: async ({ path }, ctx) => {
    const row = await ctx.services.reconciliation.approve(Number(path.mid_id), BigInt(path.item_id), callerName(ctx));
    return ok(await itemOf(ctx, Number(path.mid_id), row.id), 'Resolution approved and carried out');
  },

  getReconciliationSettings: async ({ path }, ctx) => ok(settingsRecord(await ctx.services.reconciliation.settings(Number(path.mid_id))), 'Reconciliation settings retrieved'),

  setReconciliationSettings: async ({ path, body }, ctx) => {
    const threshold = body.approval_threshold === null ? null : toMinor(body.approval_threshold);
    const saved = await ctx.services.reconciliation.setSettings(Number(path.mid_id), { theirs_missing_days: body.theirs_missing_days, approval_threshold_minor: threshold }, callerName(ctx));
    return ok(settingsRecord(saved), 'Reconciliation settings saved');
  },
});

function settingsRecord(s: { mid_id: number; theirs_missing_days: number; approval_threshold_minor: bigint | null }) {
  return { mid_id: s.mid_id, theirs_missing_days: s.theirs_missing_days, approval_threshold: s.approval_threshold_minor === null ? null : toApi(s.approval_threshold_minor) };
}
