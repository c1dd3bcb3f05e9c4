// The sandbox's card disputes (docs/contract/disputes.md, "In the sandbox"): a simulated issuer behind the
// same dispute interface as a processor's (src/processors/types.ts), so its disputes are recorded, held,
// accepted and debited by src/disputes/ exactly as a live processor's. A payment completed with one of the
// designated cards is disputed as of its own time; the dispute ends at its deadline on the business's
// sandbox clock (won or accepted by the card) unless the merchant accepted it first. The clock is moved
// forward by advanceSandboxClock. The one writer of sandbox_clocks and sandbox_dispute_answers.
import type { Db } from '../db';
import { DISPUTING_CARDS } from '../domain/card';
import { COUNTRY_OF_CURRENCY, disputeDeadline } from '../domain/dispute';
import type { ObservedDispute } from '../domain/dispute';
import type { CallContext, DisputeConnector } from '../processors/types';

/** A page of the simulated issuer's dispute list. */
const PAGE = 50;
/** At most this far ahead (a year): far enough to pass any deadline. */
export const SANDBOX_CLOCK_MAX_HOURS = 24 * 366;

interface Disputed {
  id: bigint;
  business_id: number;
  gateway_reference: string;
  card_fingerprint: string;
  request_amount_minor: bigint;
  request_currency: string;
  created_at: Date;
  mid_currency: string;
  ahead_seconds: string | null;
  accepted_minor: bigint | null;
}

// the payments of a MID completed with a disputing card, with the business's clock and any acceptance
const DISPUTED = `SELECT c.id, c.business_id, c.gateway_reference, c.card_fingerprint, c.request_amount_minor, c.request_currency, c.created_at,
    m.currency AS mid_currency, k.ahead_seconds, a.accepted_minor
  FROM collections c JOIN mids m ON m.id = c.mid_id
  LEFT JOIN sandbox_clocks k ON k.business_id = c.business_id LEFT JOIN sandbox_dispute_answers a ON a.collection_id = c.id
  WHERE c.mid_id = $1 AND c.status = 'COMPLETED' AND c.payment_method = 'CARD' AND c.card_fingerprint IN ($2, $3)`;

export class SandboxDisputes implements DisputeConnector {
  constructor(
    private readonly db: () => Db,
    private readonly now: () => Date,
    /** a designated card number's fingerprint, as the hosted card page recorded the payment's (made once per key by the card service) */
    private readonly fingerprint: (cardNumber: string) => string,
  ) {}

  /** The designated cards' fingerprints, taken once per read and handed to each row's observe. */
  private prints(): { lost: string; won: string } {
    return { lost: this.fingerprint(DISPUTING_CARDS.lost), won: this.fingerprint(DISPUTING_CARDS.won) };
  }

  /** The simulated issuer sends no events: its disputes are read (after a payment, by the poll, after the clock moves). */
  disputeOfEvent(): string | null {
    return null;
  }

  async fetchDispute(ctx: CallContext, id: string): Promise<{ kind: 'found'; dispute: ObservedDispute } | { kind: 'not_found' }> {
    const prints = this.prints();
    const row = await this.db().oneOrNone<Disputed>(`${DISPUTED} AND c.gateway_reference = $4`, [ctx.midId, prints.lost, prints.won, id]);
    return row ? { kind: 'found', dispute: this.observe(row, prints.won) } : { kind: 'not_found' };
  }

  async listDisputes(ctx: CallContext, from: Date, page: number): Promise<{ kind: 'listed'; disputes: ObservedDispute[]; more: boolean }> {
    const prints = this.prints();
    const rows = await this.db().any<Disputed>(`${DISPUTED} AND c.created_at >= $4 ORDER BY c.created_at DESC, c.id DESC LIMIT $5 OFFSET $6`, [
      ctx.midId, prints.lost, prints.won, from, PAGE + 1, (page - 1) * PAGE,
    ]);
    return { kind: 'listed', disputes: rows.slice(0, PAGE).map((r) => this.observe(r, prints.won)), more: rows.length > PAGE };
  }

  /** Accepted once, before the deadline on the business's sandbox clock; the issuer refuses anything else in its words. */
  async acceptDispute(ctx: CallContext, id: string, amountMinor: bigint, message: string): Promise<{ kind: 'done' } | { kind: 'refused'; message: string }> {
    const found = await this.fetchDispute(ctx, id);
    if (found.kind !== 'found') return { kind: 'refused', message: 'The sandbox issuer has no such dispute' };
    if (found.dispute.status !== 'needs_response') return { kind: 'refused', message: `The sandbox dispute is ${found.dispute.status} already` };
    await this.db().none(
      `INSERT INTO sandbox_dispute_answers (collection_id, accepted_minor, message, answered_at)
       SELECT id, $2, $3, $4 FROM collections WHERE gateway_reference = $1 ON CONFLICT (collection_id) DO NOTHING`,
      [id, amountMinor, message, this.now()],
    );
    return { kind: 'done' };
  }

  /** Moves the business's sandbox clock `hours` forward; its time after the move. */
  async advance(businessId: number, hours: number): Promise<{ now: Date; aheadSeconds: number }> {
    const row = await this.db().one<{ ahead_seconds: string }>(
      `INSERT INTO sandbox_clocks (business_id, ahead_seconds, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (business_id) DO UPDATE SET ahead_seconds = sandbox_clocks.ahead_seconds + EXCLUDED.ahead_seconds, updated_at = EXCLUDED.updated_at
       RETURNING ahead_seconds`,
      [businessId, hours * 3600, this.now()],
    );
    const aheadSeconds = Number(row.ahead_seconds);
    return { now: new Date(this.now().getTime() + aheadSeconds * 1000), aheadSeconds };
  }

  /** The simulated issuer's word on a disputed payment at the business's sandbox time (`wonPrint`: the fingerprint of the card whose disputes are won). */
  private observe(r: Disputed, wonPrint: string): ObservedDispute {
    const sandboxNow = this.now().getTime() + Number(r.ahead_seconds ?? 0) * 1000;
    const deadline = disputeDeadline(r.created_at, COUNTRY_OF_CURRENCY[r.mid_currency] ?? 'NG');
    const wins = r.card_fingerprint === wonPrint;
    const word = { processorDisputeId: r.gateway_reference, transactionReference: r.gateway_reference, stage: 'chargeback' as const, amountMinor: r.request_amount_minor, currency: r.request_currency, openedAt: r.created_at };
    const reason = 'Sandbox: the cardholder does not recognise the payment';
    if (r.accepted_minor !== null) return { ...word, reason, status: 'accepted', processorStatus: 'resolved', resolution: 'merchant-accepted', debitMinor: r.accepted_minor };
    if (sandboxNow < deadline.getTime()) return { ...word, reason, status: 'needs_response', processorStatus: 'awaiting-merchant-feedback', resolution: null, debitMinor: r.request_amount_minor };
    if (wins) return { ...word, reason, status: 'won', processorStatus: 'resolved', resolution: 'declined', debitMinor: 0n };
    return { ...word, reason, status: 'accepted', processorStatus: 'resolved', resolution: 'auto-accepted', debitMinor: r.request_amount_minor };
  }
}
