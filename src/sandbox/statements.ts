// The sandbox's statements (docs/reconciliation.md, "The sandbox's statements"): the simulated processor
// behind the settlements' interface (src/processors/types.ts), so reconciliation reads the sandbox exactly
// as it reads Paystack or BTCPay. Each UTC day, once two days past, is a statement of the payments completed on a
// sandbox MID that day (by the collection's gateway_reference, for what was asked). A reversal a developer
// asks for (reverseSandboxCollection: the payment taken back outside the API) is a notice of its own, read at
// once, so its item can be resolved and the collection's REVERSED walked end to end. The one writer of
// sandbox_reversals.
import type { Db } from '../db';
import { AppError } from '../errors';
import type { CallContext, ObservedSettlement, SettledPayment, SettlementConnector } from '../processors/types';
import { DAY_MS, dayStart, settledDays } from '../domain/time';

/** Payments per page of a day. */
const PAGE = 1_000;
const REVERSAL = 'reversal:';

export class SandboxStatements implements SettlementConnector {
  constructor(
    private readonly db: () => Db,
    private readonly now: () => Date,
  ) {}

  /** The days from `from` to two days ago (as a store's invoices are read), and the reversal notices of the MID since `from`. */
  async listSettlements(ctx: CallContext, from: Date, now: Date, page: number): Promise<{ kind: 'listed'; settlements: ObservedSettlement[]; more: boolean }> {
    if (page > 1) return { kind: 'listed', settlements: [], more: false };
    const settlements: ObservedSettlement[] = settledDays(from, now).map((day) => ({ ...day, settled: true, currency: null }));
    const reversals = await this.db().any<{ gateway_reference: string; reversed_at: Date }>(
      `SELECT c.gateway_reference, r.reversed_at FROM sandbox_reversals r JOIN collections c ON c.id = r.collection_id
       WHERE c.mid_id = $1 AND r.reversed_at >= $2 ORDER BY r.reversed_at`, [ctx.midId, from]);
    for (const r of reversals) settlements.push({ id: `${REVERSAL}${r.gateway_reference}`, settled: true, currency: null, settledAt: r.reversed_at });
    return { kind: 'listed', settlements, more: false };
  }

  async settlementPayments(ctx: CallContext, id: string, page: number): Promise<{ kind: 'listed'; payments: SettledPayment[]; more: boolean } | { kind: 'unavailable'; detail: string }> {
    if (id.startsWith(REVERSAL)) {
      const rows = await this.db().any<{ gateway_reference: string; request_amount_minor: bigint; request_currency: string; reversed_at: Date }>(
        `SELECT c.gateway_reference, c.request_amount_minor, c.request_currency, r.reversed_at FROM sandbox_reversals r JOIN collections c ON c.id = r.collection_id
         WHERE c.mid_id = $1 AND c.gateway_reference = $2`, [ctx.midId, id.slice(REVERSAL.length)]);
      const payments = rows.map((r) => ({ reference: `REV-${r.gateway_reference}`, reverses: r.gateway_reference, amountMinor: r.request_amount_minor, currency: r.request_currency, occurredAt: r.reversed_at }));
      return { kind: 'listed', payments: page === 1 ? payments : [], more: false };
    }
    const start = dayStart(id);
    if (!start) return { kind: 'unavailable', detail: `not a day: ${id}` };
    const rows = await this.db().any<{ gateway_reference: string; request_amount_minor: bigint; request_currency: string; created_at: Date }>(
      `SELECT gateway_reference, request_amount_minor, request_currency, created_at FROM collections
       WHERE mid_id = $1 AND status IN ('COMPLETED', 'REVERSED') AND created_at >= $2 AND created_at < $3 ORDER BY id LIMIT $4 OFFSET $5`,
      [ctx.midId, start, new Date(start.getTime() + DAY_MS), PAGE + 1, (page - 1) * PAGE]);
    const payments = rows.slice(0, PAGE).map((r) => ({ reference: r.gateway_reference, amountMinor: r.request_amount_minor, currency: r.request_currency, occurredAt: r.created_at }));
    return { kind: 'listed', payments, more: rows.length > PAGE };
  }

  /** A completed sandbox payment of the business reversed at the simulated processor, once. */
  async reverse(businessId: number, gatewayReference: string): Promise<void> {
    const row = await this.db().oneOrNone<{ id: bigint; status: string; reversed: boolean }>(
      `SELECT c.id, c.status, EXISTS (SELECT FROM sandbox_reversals r WHERE r.collection_id = c.id) AS reversed
       FROM collections c WHERE c.gateway_reference = $1 AND c.business_id = $2`, [gatewayReference, businessId]);
    if (!row) throw new AppError('NOT_FOUND', `No collection ${gatewayReference}`);
    if (row.reversed) throw new AppError('INVALID_STATE', 'The sandbox processor has reversed this payment already');
    if (row.status !== 'COMPLETED') throw new AppError('INVALID_STATE', `Only a COMPLETED payment can be reversed; this one is ${row.status}`);
    await this.db().none('INSERT INTO sandbox_reversals (collection_id, reversed_at) VALUES ($1, $2) ON CONFLICT (collection_id) DO NOTHING', [row.id, this.now()]);
  }
}
