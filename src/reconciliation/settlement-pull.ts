// Settlements pulled through a processor's API (docs/reconciliation.md, "Paystack's settlements"): on a
// schedule, each processor account (the active MIDs of a processor that reports settlements, grouped by their
// credentials: MIDs of one account share its settlements) is asked once for those made in the look-back;
// each one paid out and not taken yet is read whole (every page of its payments). Its payments are shared out
// to the MIDs of the account by our processor requests' references (a payment we have no record of goes to
// the account's first MID) and taken in as one statement per MID, matched like an uploaded file. A settlement
// is known by the SHA-256 of its source and id, unique per MID, so a second pull takes nothing again and asks
// nothing more than the list. Reading is bounded per run; the next run reads on.
// Settlements are read oldest first, and one the processor does not answer for (a page of its payments) ends
// the account's run: a later one taken past it would stretch the period the MID's statements cover over its
// payments, and each would be counted theirs_missing before the next run read it. What the processor has not
// reported is looked for once the run's settlements are all in, not after each: a payment one lists that an
// earlier one of the run did not is not counted missing first.
import { createHash } from 'node:crypto';
import type { Base } from '../base';
import type { CallContext, ObservedSettlement, SettlementConnector } from '../processors/types';
import type { StatementIntake, StatementSource } from './intake';
import type { StatementLine } from './statement-lines';

/** How far back each pull asks for settlements: a settlement's payments are a day or two old, a week covers a processor's late runs. */
export const SETTLEMENT_LOOKBACK_DAYS = 14;
/** Pages of the settlement list read per MID per run. */
const MAX_LIST_PAGES = 5;
/** Pages of one settlement's payments read at most (a settlement beyond is left unread, with a warning). */
const MAX_PAYMENT_PAGES = 200;
/** MIDs asked per run. */
const MAX_MIDS = 200;
/** How often settlements are pulled: a processor settles daily. */
export const SETTLEMENT_PULL_INTERVAL_MS = 3_600_000;
/** Who took a pulled statement in, as its taken_by says. */
export const PULLED_BY = 'settlement-pull';

/** Which statement source a processor's settlements are, by its service type. */
const SOURCES: Record<string, StatementSource> = { paystack: 'paystack_settlement', btcpay: 'btcpay_invoices', sandbox: 'sandbox_statement' };

export interface PullParts extends Base {
  settlementsOf(serviceType: string): SettlementConnector | null;
  openCredentials(sealed: string | null): CallContext['credentials'];
}

/** The content hash a settlement is known by: its source and id, digested as a file's bytes would be. */
export function settlementHash(source: StatementSource, id: string): string {
  return createHash('sha256').update(`${source}:${id}`).digest('hex');
}

export class SettlementPull {
  constructor(
    private readonly s: PullParts,
    private readonly intake: StatementIntake,
  ) {}

  /** One run: the statements taken in (one per MID and settlement). */
  async pull(): Promise<number> {
    const mids = await this.s.db.any<{ id: number; service_type: string; credentials_enc: string | null }>(
      'SELECT id, service_type, credentials_enc FROM mids WHERE active AND service_type = ANY($1) ORDER BY id LIMIT $2',
      [Object.keys(SOURCES), MAX_MIDS],
    );
    const accounts = new Map<string, { serviceType: string; ctx: CallContext; mids: number[] }>();
    for (const mid of mids) {
      const credentials = this.s.openCredentials(mid.credentials_enc);
      const key = `${mid.service_type} ${JSON.stringify(Object.entries(credentials).sort())}`;
      const account = accounts.get(key) ?? { serviceType: mid.service_type, ctx: { midId: mid.id, credentials }, mids: [] };
      account.mids.push(mid.id);
      accounts.set(key, account);
    }
    const from = new Date(this.s.now().getTime() - SETTLEMENT_LOOKBACK_DAYS * 86_400_000);
    let taken = 0;
    for (const account of accounts.values()) {
      const connector = this.s.settlementsOf(account.serviceType);
      if (connector) taken += await this.pullAccount(connector, account.ctx, account.mids, SOURCES[account.serviceType], from);
    }
    return taken;
  }

  private async pullAccount(connector: SettlementConnector, ctx: CallContext, mids: number[], source: StatementSource, from: Date): Promise<number> {
    const listed = await this.listed(connector, ctx, source, from);
    if (listed.length === 0) return 0;
    // what the MIDs hold already, asked once for the listed settlements together rather than once each
    const held = await this.s.db.any<{ mid_id: number; content_hash: string }>(
      'SELECT mid_id, content_hash FROM reconciliation_statements WHERE mid_id = ANY($1) AND content_hash = ANY($2)', [mids, listed.map((x) => x.hash)]);
    const known = new Set(held.map((k) => `${k.mid_id} ${k.content_hash}`));
    let taken = 0;
    for (const settlement of listed) {
      const missing = mids.filter((m) => !known.has(`${m} ${settlement.hash}`));
      if (missing.length === 0) continue;
      const lines = await this.payments(connector, ctx, settlement.id);
      // one the processor did not answer for ends the run (the next reads on from it); one too long for any run is passed
      if (lines === 'unanswered') break;
      if (lines === 'too_long') continue;
      const shares = await this.shareOut(mids, lines);
      for (const midId of missing) if ((await this.intake.take(midId, source, settlement.hash, shares.get(midId) ?? [], PULLED_BY, settlement.covers)).created) taken++;
    }
    // what the processor has not reported, once every settlement of the run is in
    if (taken > 0) await this.intake.missingFor(mids);
    return taken;
  }

  /** The settled settlements the processor lists since `from` (pages up to the bound), oldest first and those without a time last; none when a page is not answered. */
  private async listed(connector: SettlementConnector, ctx: CallContext, source: StatementSource, from: Date): Promise<(ObservedSettlement & { hash: string })[]> {
    const all: (ObservedSettlement & { hash: string })[] = [];
    for (let page = 1; page <= MAX_LIST_PAGES; page++) {
      const listed = await connector.listSettlements(ctx, from, this.s.now(), page);
      if (listed.kind !== 'listed') {
        // a list read in part could leave an older settlement out while a newer one is taken: none is read
        this.s.log.warn('settlement pull: the processor did not answer the list', { mid_id: ctx.midId, detail: listed.detail });
        return [];
      }
      for (const x of listed.settlements) if (x.settled) all.push({ ...x, hash: settlementHash(source, x.id) });
      if (!listed.more) break;
    }
    const at = (x: ObservedSettlement) => x.settledAt?.getTime() ?? Number.POSITIVE_INFINITY;
    return all.sort((a, b) => at(a) - at(b) || 0);
  }

  /** The lines of each MID of an account: by the MID of our processor request the processor knows by that reference, else the first MID's. */
  private async shareOut(mids: number[], lines: StatementLine[]): Promise<Map<number, StatementLine[]>> {
    const owners = new Map<string, number>();
    const references = lines.map((l) => l.reference);
    for (let i = 0; i < references.length; i += 5_000) {
      const rows = await this.s.db.any<{ reference: string; mid_id: number }>(
        'SELECT vendor_reference AS reference, mid_id FROM processor_requests WHERE mid_id = ANY($1) AND vendor_reference = ANY($2)', [mids, references.slice(i, i + 5_000)]);
      for (const r of rows) owners.set(r.reference, r.mid_id);
    }
    const shares = new Map<number, StatementLine[]>();
    for (const line of lines) {
      const midId = owners.get(line.reference) ?? mids[0];
      const share = shares.get(midId) ?? [];
      share.push(line);
      shares.set(midId, share);
    }
    return shares;
  }

  /**
   * Every payment of a settlement as statement lines; else (with a warning) `unanswered` when a page was not
   * answered (the next run asks again) or `too_long` when it has more pages than a run reads (never read).
   */
  private async payments(connector: SettlementConnector, ctx: CallContext, id: string): Promise<StatementLine[] | 'unanswered' | 'too_long'> {
    const lines: StatementLine[] = [];
    for (let page = 1; page <= MAX_PAYMENT_PAGES; page++) {
      const a = await connector.settlementPayments(ctx, id, page);
      if (a.kind !== 'listed') {
        this.s.log.warn('settlement pull: a settlement could not be read whole; the next run asks again from it', { mid_id: ctx.midId, settlement: id, detail: a.detail });
        return 'unanswered';
      }
      for (const p of a.payments) {
        lines.push({ reference: p.reference, kind: p.reverses ? 'reversal' : 'payment', originalReference: p.reverses ?? null, amountMinor: p.amountMinor, currency: p.currency, occurredAt: p.occurredAt });
      }
      if (!a.more) return lines;
    }
    this.s.log.warn('settlement pull: a settlement has more payments than one run reads; left unread', { mid_id: ctx.midId, settlement: id });
    return 'too_long';
  }
}
