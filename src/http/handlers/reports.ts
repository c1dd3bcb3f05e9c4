// Reports (docs/reports.md): wallet statements (merchant and operator), collection, refund and disbursement exports
// (merchant and operator) and the daily settlement report (operator), as JSON or as CSV files; the
// dashboard's overview (operator and merchant).
import { toApi } from '../../domain/money';
import { apiTime, apiTimeOrNull, parseApiTime } from '../../domain/time';
import type { Sink } from '../../reports/csv';
import type { CountRow, MethodRow, OverviewData } from '../../reports/overview';
import { settlementCsv } from '../../reports/settlement';
import type { SettlementReport } from '../../reports/settlement';
import type { Buckets, LineFx, StatementPage, StatementQuery } from '../../reports/statement';
import type { CollectionFilters } from '../../collections';
import type { PaymentMethod } from '../../domain/collection';
import type { DisbursementFilters } from '../../disbursements/filters';
import type { RefundFilters } from '../../refunds/filters';
import { merchantUser, principalOf } from '../context';
import type { RequestContext } from '../context';
import { ok } from '../envelope';
import { pageOf } from '../paging';
import { typedHandlers } from '../typed';
import { filtersOf } from './collections';
import { callerOf, checkBusinessFilter, disbursementFiltersOf } from './disbursements';
import { refundFiltersOf } from './refunds';
import { waitingOf } from './waiting';
import type { Waiting } from '../../disbursements/approvals';

const CSV = 'text/csv; charset=utf-8';

function attachment(filename: string): Record<string, string> {
  return { 'Content-Disposition': `attachment; filename="${filename}"` };
}

/** A CSV file written by `write` as the client takes it (what write answers, a row count, is not sent). */
function csvStream(filename: string, write: (sink: Sink) => Promise<unknown>) {
  return { body: '', contentType: CSV, headers: attachment(filename), stream: async (sink: Sink) => void (await write(sink)) };
}

const dayText = (d: Date) => apiTime(d).slice(0, 10);

function balancesRecord(b: Buckets) {
  return { available: toApi(b.available), pending: toApi(b.pending), reserved: toApi(b.reserved), other: toApi(b.other), total: toApi(b.total) };
}

/** A line's payment and conversion, as the collection record shows them (all null when the line credits no converted collection). */
function lineFxRecord(fx: LineFx | null) {
  const rate = (text: string | null) => (text === null ? null : Number(text));
  return {
    request_amount: fx === null ? null : toApi(fx.requestAmountMinor),
    request_currency: fx?.requestCurrency ?? null,
    fx_rate: rate(fx?.rate ?? null),
    fx_reference_rate: rate(fx?.referenceRate ?? null),
    fx_markup: rate(fx?.markup ?? null),
    fx_source: (fx?.source ?? null) as 'ecb' | 'frankfurter' | 'operator' | 'sandbox' | null,
    fx_as_of: apiTimeOrNull(fx?.asOf ?? null),
  };
}

function statementRecord(q: StatementQuery, p: StatementPage) {
  return {
    currency: q.currency,
    from: apiTime(q.from),
    to: apiTime(q.to),
    opening_balance: balancesRecord(p.opening),
    closing_balance: balancesRecord(p.closing),
    lines: p.lines.map((l) => ({
      time: apiTime(l.at),
      journal_id: Number(l.journalId),
      kind: l.kind,
      reference_type: l.referenceType,
      reference: l.reference,
      collection_reference: l.collectionReference,
      merchant_reference: l.merchantReference,
      change: balancesRecord(l.change),
      fee: toApi(l.feeMinor),
      balance_after: toApi(l.balanceAfterMinor),
      ...lineFxRecord(l.fx),
    })),
  };
}

/** Counts per currency folded into one group's record: totals over its currencies, the volume per currency. */
function countsRecord(rows: CountRow[]) {
  const sum = (k: 'collections' | 'completed' | 'final') => rows.reduce((n, r) => n + r[k], 0);
  const final = sum('final');
  return {
    collections: sum('collections'),
    completed: sum('completed'),
    final,
    success_rate: final === 0 ? null : Math.round((sum('completed') / final) * 10_000) / 10_000,
    volume: rows.filter((r) => r.volume_minor > 0n).map((r) => ({ currency: r.currency, amount: toApi(r.volume_minor) })),
  };
}

/** Rows grouped by a key, in their first appearance's order. */
function groups<T>(rows: T[], key: (r: T) => string): T[][] {
  const by = new Map<string, T[]>();
  for (const r of rows) by.set(key(r), [...(by.get(key(r)) ?? []), r]);
  return [...by.values()];
}

/** `waiting`: what waits for a merchant person's approval (null for an operator). */
function overviewRecord(o: OverviewData, waiting: Waiting | null) {
  const methods = (rows: MethodRow[]) => groups(rows, (r) => r.payment_method).map((g) => ({ payment_method: g[0].payment_method as PaymentMethod, ...countsRecord(g) }));
  return {
    as_of: apiTime(o.asOf),
    periods: [
      { period: 'today' as const, from: apiTime(o.today.from), methods: methods(o.today.rows) },
      { period: 'last_30_days' as const, from: apiTime(o.last30Days.from), methods: methods(o.last30Days.rows) },
    ],
    days: o.days.map((d) => {
      const { volume, ...counts } = countsRecord([d]);
      return { day: d.day, payment_method: d.payment_method as PaymentMethod, currency: d.currency, ...counts, volume: volume[0]?.amount ?? 0 };
    }),
    mids: groups(o.mids ?? [], (r) => String(r.mid_id)).map((g) => ({ service_type: g[0].service_type, mid_id: g[0].mid_id, business_id: g[0].business_id, ...countsRecord(g) })),
    attention: o.attention,
    waiting: waiting && { approvals: waiting.waiting, approvals_for_you: waiting.forYou },
  };
}

type StatementParams = { from: string; to: string; format?: string; per_page?: string; cursor?: string };

async function statementReply(ctx: RequestContext, businessId: number, currency: string, query: StatementParams) {
  const q: StatementQuery = { businessId, currency, from: parseApiTime(query.from), to: parseApiTime(query.to) };
  const statements = ctx.services.reports.statements;
  if (query.format === 'csv') {
    const walletId = await statements.walletOf(q);
    return csvStream(`statement-${currency}-${dayText(q.from)}-${dayText(q.to)}.csv`, (sink) => statements.writeCsv(q, walletId, sink));
  }
  const page = pageOf(query);
  const found = await statements.page(q, page.perPage, page.cursor);
  const paging = { per_page: page.perPage, next_cursor: found.nextCursor, total: found.total };
  return { body: { ...ok(statementRecord(q, found), 'Wallet statement retrieved').body, paging } };
}

function exportReply(ctx: RequestContext, filters: CollectionFilters) {
  return csvStream(`collections-${dayText(ctx.services.now())}.csv`, (sink) => ctx.services.reports.exports.writeCsv(filters, sink));
}

function refundExportReply(ctx: RequestContext, filters: RefundFilters) {
  return csvStream(`refunds-${dayText(ctx.services.now())}.csv`, (sink) => ctx.services.reports.refundExports.writeCsv(filters, sink));
}

function disbursementExportReply(ctx: RequestContext, filters: DisbursementFilters) {
  return csvStream(`disbursements-${dayText(ctx.services.now())}.csv`, (sink) => ctx.services.reports.disbursementExports.writeCsv(filters, sink));
}

function settlementRecord(r: SettlementReport) {
  return {
    date: r.date,
    totals: r.totals.map((t) => ({
      service_type: t.service_type,
      mid_id: t.mid_id,
      currency: t.currency,
      account_currency: t.account_currency,
      requests: t.requests,
      confirmed_count: t.confirmed_count,
      confirmed_amount: toApi(t.confirmed_minor),
      declined_count: t.declined_count,
      completed_count: t.completed_count,
      completed_amount: toApi(t.completed_minor),
      credited_amount: toApi(t.credited_minor),
      fees: toApi(t.fee_minor),
      mismatches: t.mismatches,
    })),
    mismatches: r.mismatches.map((m) => ({
      mismatch: m.mismatch,
      gateway_reference: m.gateway_reference,
      business_id: m.business_id,
      service_type: m.service_type,
      mid_id: m.mid_id,
      processor_reference: m.processor_reference,
      amount: toApi(m.amount_minor),
      currency: m.currency,
      request_state: m.request_state as 'queued' | 'sending' | 'sent' | 'unknown' | 'settled' | 'held',
      confirmed_outcome: m.confirmed_outcome as 'COMPLETED' | 'FAILED' | 'CANCELLED' | null,
      confirmed_at: apiTimeOrNull(m.confirmed_at),
      status: m.status,
      created_at: apiTime(m.created_at),
    })),
  };
}

export const merchant = typedHandlers({
  getWalletStatement: async ({ path, query }, ctx) => statementReply(ctx, principalOf(ctx).businessId, path.currency, query),

  exportCollections: async ({ query }, ctx) => exportReply(ctx, { ...filtersOf(query), business_id: principalOf(ctx).businessId }),

  exportRefunds: async ({ query }, ctx) => refundExportReply(ctx, { ...refundFiltersOf(query), business_id: principalOf(ctx).businessId }),

  /** The Secret-Key and IP allowlist guard of every disbursement call, before the file starts. */
  exportDisbursements: async ({ query }, ctx) => {
    await ctx.services.disbursements.guard(callerOf(ctx), 'exportDisbursements');
    return disbursementExportReply(ctx, { ...disbursementFiltersOf(query), business_id: principalOf(ctx).businessId });
  },
});

export const admin = typedHandlers({
  getAdminWalletStatement: async ({ path, query }, ctx) => statementReply(ctx, Number(path.business_id), path.currency, query),

  exportAdminCollections: async ({ query }, ctx) => exportReply(ctx, filtersOf(query)),

  /** A merchant user's business_id was set to its own by the access layer. */
  exportAdminRefunds: async ({ query }, ctx) => refundExportReply(ctx, refundFiltersOf(query)),

  /** As the disbursement list: a merchant user's business_id was set by the access layer, an operator's must exist. */
  exportAdminDisbursements: async ({ query }, ctx) => {
    const filters = disbursementFiltersOf(query);
    await checkBusinessFilter(ctx, filters.business_id);
    return disbursementExportReply(ctx, filters);
  },

  getOverview: async ({ query }, ctx) => {
    const businessId = query.business_id === undefined ? null : Number(query.business_id);
    const operator = !merchantUser(ctx);
    // an operator asking about a business that does not exist is told so, not shown zeros
    if (businessId !== null && operator) await ctx.services.businesses.getBusiness(businessId);
    const waiting = ctx.actor?.type === 'user' && !operator ? await waitingOf(ctx, ctx.actor.user) : null;
    return ok(overviewRecord(await ctx.services.reports.overviews.of(businessId, operator), waiting), 'Overview retrieved');
  },

  getSettlementReport: async ({ query }, ctx) => {
    const report = await ctx.services.reports.settlement.day(query.date);
    if (query.format === 'csv') return { body: settlementCsv(report), contentType: CSV, headers: attachment(`settlement-${report.date}.csv`) };
    return ok(settlementRecord(report), 'Settlement report retrieved');
  },
});
