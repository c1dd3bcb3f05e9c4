// The fake Paystack's settlements: the Settlements API's reads over the fake's real HTTP, made from the
// transactions the fake saw paid. Reproduced behaviours and their sources (Paystack's API reference,
// Settlements, paystack.com/docs/api/settlement):
// - GET /settlement lists settlements newest first (data: a list; perPage (default 50), page, from, to;
//   meta with total, skipped, perPage, page and pageCount); each has id, domain, status (`success` once paid
//   out, `processing` before), currency, integration, total_amount (paid out: the payments less the fees),
//   effective_amount, total_fees, total_processed, deductions, settlement_date, settled_by, createdAt and
//   updatedAt;
// - GET /settlement/:id/transactions lists the transactions one settlement paid out (data: transaction
//   objects as GET /transaction answers them: reference, amount in the smallest unit before the fee, fees,
//   currency, status, paid_at; the same meta), unknown settlement 404;
// - awkward parts kept: a processing settlement lists the transactions it has so far (more may join it), and
//   the transactions of the list spell their payment time both `paid_at` and `paidAt` (as the API's samples
//   do), with `paid_at` absent on some (the fake drops it on every third transaction so a reader must take
//   `paidAt`).
// Not Paystack: `listStatus`, a failure the list answers with while set (an outage); `settle()`, which makes a settlement of the paid transactions not settled yet, with the
// differences a test injects (an amount changed, a payment we never asked for, a payment left out).
import type { FakeTransaction } from './paystack';

export interface SettlementHost {
  /** every transaction the fake saw paid (status success) */
  paid(): FakeTransaction[];
  view(t: FakeTransaction): Record<string, unknown>;
}

export interface FakeSettlement {
  id: number;
  status: 'success' | 'processing';
  currency: string;
  at: string;
  /** the transactions as the settlement lists them (a changed amount, an extra payment included) */
  transactions: Record<string, unknown>[];
}

export interface SettleOptions {
  /** the settlement is still being made (status processing) */
  processing?: boolean;
  /** reference -> the amount (smallest unit) the settlement lists instead of what was paid */
  amounts?: Map<string, number>;
  /** payments the settlement lists that nobody asked Paystack for (reference, amount) */
  extra?: { reference: string; amount: number }[];
  /** references left out of this settlement (reported by none) */
  omit?: Set<string>;
  /** the settlement's day (ISO); now by default */
  at?: string;
}

const list = <T>(items: T[], url: URL) => {
  const perPage = Math.min(Math.max(Number(url.searchParams.get('perPage') ?? 50) || 50, 1), 100);
  const page = Math.max(Number(url.searchParams.get('page') ?? 1) || 1, 1);
  const pageCount = Math.max(Math.ceil(items.length / perPage), 1);
  return { data: items.slice((page - 1) * perPage, page * perPage), meta: { total: items.length, skipped: (page - 1) * perPage, perPage, page, pageCount } };
};

export class FakeSettlements {
  readonly all = new Map<number, FakeSettlement>();
  private readonly settled = new Set<string>();
  private nextId = 3_068_203;
  /** the paths of the settlement calls received, in order */
  readonly calls: string[] = [];
  /** while set, GET /settlement answers this HTTP status and no list (Paystack's settlements down) */
  listStatus: number | null = null;

  constructor(private readonly host: SettlementHost) {}

  /** Settles every paid transaction not settled yet (in one currency: the first one's), with the differences asked for. */
  settle(o: SettleOptions = {}): FakeSettlement {
    const due = this.host.paid().filter((t) => !this.settled.has(t.reference) && !o.omit?.has(t.reference));
    const currency = due[0]?.currency ?? 'NGN';
    const transactions = due.filter((t) => t.currency === currency).map((t, i) => {
      if (!o.processing) this.settled.add(t.reference);
      const v = this.host.view(t);
      const amount = o.amounts?.get(t.reference) ?? t.amount;
      const listed: Record<string, unknown> = { ...v, amount, requested_amount: amount, fees: Math.round(amount * 0.015) };
      if (i % 3 === 2) delete listed.paid_at;
      return listed;
    });
    for (const [n, e] of (o.extra ?? []).entries()) {
      const at = new Date().toISOString();
      transactions.push({ id: 9_000_000 + this.nextId + n, domain: 'test', status: 'success', reference: e.reference, amount: e.amount, fees: Math.round(e.amount * 0.015), currency, paid_at: at, paidAt: at, created_at: at, channel: 'card', customer: { email: 'someone@example.org' } });
    }
    const s: FakeSettlement = { id: this.nextId++, status: o.processing ? 'processing' : 'success', currency, at: o.at ?? new Date().toISOString(), transactions };
    this.all.set(s.id, s);
    return s;
  }

  private view(s: FakeSettlement) {
    const processed = s.transactions.reduce((a, t) => a + Number(t.amount), 0);
    const fees = s.transactions.reduce((a, t) => a + Number(t.fees), 0);
    return {
      integration: 463433, settled_by: null, settlement_date: s.at, domain: 'test', total_amount: processed - fees, effective_amount: processed - fees,
      status: s.status, id: s.id, currency: s.currency, total_fees: fees, total_processed: processed, deductions: null, createdAt: s.at, updatedAt: s.at,
    };
  }

  route(method: string, url: URL): { status: number; json: unknown } | null {
    if (method !== 'GET') return null;
    if (url.pathname === '/settlement') {
      this.calls.push(url.pathname);
      if (this.listStatus !== null) return { status: this.listStatus, json: { status: false, message: 'Settlements are unavailable at the moment' } };
      const from = url.searchParams.get('from');
      const shown = [...this.all.values()].filter((s) => !from || s.at >= from).reverse();
      return { status: 200, json: { status: true, message: 'Settlements retrieved', ...list(shown.map((s) => this.view(s)), url) } };
    }
    const m = /^\/settlement\/(\d+)\/transactions$/.exec(url.pathname);
    if (!m) return null;
    this.calls.push(url.pathname);
    const s = this.all.get(Number(m[1]));
    if (!s) return { status: 404, json: { status: false, message: 'Settlement not found' } };
    return { status: 200, json: { status: true, message: 'Transactions retrieved', ...list(s.transactions, url) } };
  }
}
