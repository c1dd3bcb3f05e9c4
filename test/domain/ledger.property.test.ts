// Proves with random event sequences that the ledger functions keep every invariant (postings balance per currency, balances are sums of postings, no collection credited twice) and give every wallet bucket what an independent model, written here without the production functions, expects.
import fc from 'fast-check';
import { canTransition } from '../../src/domain/collection';
import type { PaymentMethod, Status } from '../../src/domain/collection';
import { feeOf, splitFee } from '../../src/domain/fees';
import type { FeeBearer } from '../../src/domain/fees';
import { convertMinor, pickRate } from '../../src/domain/fx';
import { accountName, addDaysUtc, assertBalanced, completionPlan, releasePlan, sumByAccount } from '../../src/domain/ledger';
import type { HoldBucket, PostingDraft } from '../../src/domain/ledger';

const WALLETS = [
  { id: 1, currency: 'UGX' },
  { id: 2, currency: 'USD' },
];
const RATES = [{ base: 'USD', quote: 'UGX', rate: '3712.345678901234' }];
/** The same rate as an exact fraction, for the model: 3712.345678901234 = RATE_NUM / RATE_DEN. */
const RATE_NUM = 3712345678901234n;
const RATE_DEN = 10n ** 12n;

/** Hundredths of a percent as the NUMERIC text the service stores (1234 -> "12.34"). */
const percentText = (hundredths: number) => `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')}`;

interface Collection {
  status: Status;
  walletId: number;
  currency: string;
  paymentMethod: PaymentMethod;
  accountAmountMinor: bigint;
  feeMinor: bigint;
  totalCreditMinor: bigint;
  customerCharged: boolean;
}

interface Hold {
  walletId: number;
  currency: string;
  bucket: HoldBucket;
  amountMinor: bigint;
  releaseAt: Date;
  released: boolean;
}

interface Journal {
  kind: string;
  collection: number | null;
  postings: PostingDraft[];
}

/** The ledger as the service keeps it, in memory: journals appended, holds released once. */
class Book {
  collections: Collection[] = [];
  journals: Journal[] = [];
  holds: Hold[] = [];
  /** a running balance per account, kept only to compare with the sums of postings */
  running = new Map<string, bigint>();
  now = new Date('2025-01-31T12:00:00Z');

  readonly settings: { reservePercent: string; reserveMonths: number; cardSettlementDays: number };

  constructor(s: Settings) {
    this.settings = { reservePercent: percentText(s.reserveHundredths), reserveMonths: s.reserveMonths, cardSettlementDays: s.cardSettlementDays };
  }

  post(kind: string, collection: number | null, postings: PostingDraft[]) {
    assertBalanced(postings);
    if (kind === 'collection_credit' && this.journals.some((j) => j.kind === kind && j.collection === collection)) {
      throw new Error('second credit of one collection'); // journals_one_credit
    }
    this.journals.push({ kind, collection, postings });
    for (const p of postings) this.running.set(accountName(p.account), (this.running.get(accountName(p.account)) ?? 0n) + p.amountMinor);
  }

  request(r: RequestEvent) {
    const w = WALLETS[r.wallet];
    const rate = r.requestCurrency === w.currency ? null : pickRate(r.requestCurrency, w.currency, RATES);
    const account = rate ? convertMinor(r.amount, rate) : r.amount;
    if (account <= 0n) return; // refused at request time (too small once converted)
    const split = splitFee(account, feeOf(account, { percent: percentText(r.percentHundredths), fixedMinor: r.fixed }), r.bearer);
    const method = r.method;
    this.collections.push({ status: 'PENDING', walletId: w.id, currency: w.currency, paymentMethod: method, accountAmountMinor: account, ...split });
  }

  /** A provider report: only a PENDING collection moves; COMPLETED credits it in the same step. */
  report(index: number, outcome: Status) {
    const c = this.collections[index % Math.max(1, this.collections.length)];
    if (!c || !canTransition(c.status, outcome)) return;
    c.status = outcome;
    if (outcome !== 'COMPLETED') return;
    const plan = completionPlan({ ...c, ...this.settings, completedAt: this.now });
    this.post('collection_credit', this.collections.indexOf(c), plan.postings);
    for (const h of plan.holds) this.holds.push({ ...h, walletId: c.walletId, currency: c.currency, released: false });
  }

  releaseDue() {
    for (const h of this.holds) {
      if (h.released || h.releaseAt > this.now) continue;
      const plan = releasePlan(h);
      this.post(plan.journalKind, null, plan.postings);
      h.released = true;
    }
  }

  check(model: Model) {
    const all = this.journals.flatMap((j) => j.postings);
    const perCurrency = new Map<string, bigint>();
    for (const p of all) perCurrency.set(p.account.currency, (perCurrency.get(p.account.currency) ?? 0n) + p.amountMinor);
    for (const sum of perCurrency.values()) expect(sum).toBe(0n);

    const sums = sumByAccount(all);
    expect(sums).toEqual(this.running);

    // Every account, summed here by hand, holds exactly what the model says.
    const balance = (walletId: number | null, currency: string, kind: string) =>
      all.filter((p) => p.account.walletId === walletId && p.account.currency === currency && p.account.kind === kind).reduce((a, p) => a + p.amountMinor, 0n);
    for (const w of WALLETS) {
      const expected = model.wallets[w.currency];
      expect({ available: balance(w.id, w.currency, 'available'), pending: balance(w.id, w.currency, 'pending'), reserved: balance(w.id, w.currency, 'reserved') }).toEqual(
        expected,
      );
      expect(expected.available >= 0n && expected.pending >= 0n && expected.reserved >= 0n).toBe(true);
      expect(balance(null, w.currency, 'fee_revenue')).toBe(model.fees[w.currency]);
      expect(balance(null, w.currency, 'processor_clearing')).toBe(-model.paid[w.currency]);
    }

    this.collections.forEach((c, i) => {
      const credits = this.journals.filter((j) => j.kind === 'collection_credit' && j.collection === i).length;
      expect(credits).toBe(c.status === 'COMPLETED' ? 1 : 0);
    });
  }
}

// ---- the model: what each wallet bucket must hold, from the rules of docs/contract/money.md alone -------

interface Settings {
  reserveHundredths: number;
  reserveMonths: number;
  cardSettlementDays: number;
}

interface RequestEvent {
  wallet: number;
  requestCurrency: string;
  method: PaymentMethod;
  amount: bigint;
  percentHundredths: number;
  fixed: bigint;
  bearer: FeeBearer;
}

/** n / d for positive n and d, halves rounded up (away from zero). */
function half(n: bigint, d: bigint): bigint {
  return (2n * n + d) / (2n * d);
}

function daysInMonth(year: number, month0: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month0];
}

/** The same day `months` later, or the month's last day when it has no such day. */
function monthsLater(d: Date, months: number): number {
  const total = d.getUTCFullYear() * 12 + d.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const month0 = total % 12;
  const day = Math.min(d.getUTCDate(), daysInMonth(year, month0));
  return Date.UTC(year, month0, day, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
}

interface ModelCollection {
  status: 'PENDING' | 'FINAL';
  currency: string;
  method: PaymentMethod;
  paid: bigint;
  fee: bigint;
  credit: bigint;
}

class Model {
  wallets: Record<string, { available: bigint; pending: bigint; reserved: bigint }> = {};
  fees: Record<string, bigint> = {};
  paid: Record<string, bigint> = {};
  collections: ModelCollection[] = [];
  holds: { currency: string; bucket: 'pending' | 'reserved'; amount: bigint; at: number }[] = [];
  now = Date.UTC(2025, 0, 31, 12);

  constructor(readonly s: Settings) {
    for (const w of WALLETS) {
      this.wallets[w.currency] = { available: 0n, pending: 0n, reserved: 0n };
      this.fees[w.currency] = 0n;
      this.paid[w.currency] = 0n;
    }
  }

  request(r: RequestEvent) {
    const currency = WALLETS[r.wallet].currency;
    let account = r.amount;
    if (r.requestCurrency === 'USD' && currency === 'UGX') account = half(r.amount * RATE_NUM, RATE_DEN);
    if (r.requestCurrency === 'UGX' && currency === 'USD') account = half(r.amount * RATE_DEN, RATE_NUM);
    if (account <= 0n) return;
    const fee = half(account * BigInt(r.percentHundredths), 10_000n) + r.fixed;
    const collection =
      r.bearer === 'customer'
        ? { paid: account + fee, fee, credit: account }
        : { paid: account, fee: fee < account ? fee : account, credit: fee < account ? account - fee : 0n };
    this.collections.push({ status: 'PENDING', currency, method: r.method, ...collection });
  }

  report(index: number, outcome: Status) {
    const c = this.collections[index % Math.max(1, this.collections.length)];
    if (!c || c.status !== 'PENDING') return;
    c.status = 'FINAL';
    if (outcome !== 'COMPLETED') return;
    const w = this.wallets[c.currency];
    this.fees[c.currency] += c.fee;
    this.paid[c.currency] += c.paid;
    const reserve = this.s.reserveMonths > 0 ? half(c.credit * BigInt(this.s.reserveHundredths), 10_000n) : 0n;
    const rest = c.credit - reserve;
    w.reserved += reserve;
    if (reserve > 0n) this.holds.push({ currency: c.currency, bucket: 'reserved', amount: reserve, at: monthsLater(new Date(this.now), this.s.reserveMonths) });
    if (c.method === 'CARD' && this.s.cardSettlementDays > 0) {
      w.pending += rest;
      if (rest > 0n) this.holds.push({ currency: c.currency, bucket: 'pending', amount: rest, at: this.now + this.s.cardSettlementDays * 86_400_000 });
    } else {
      w.available += rest;
    }
  }

  release() {
    for (const h of this.holds.filter((x) => x.at <= this.now)) {
      this.wallets[h.currency][h.bucket] -= h.amount;
      this.wallets[h.currency].available += h.amount;
    }
    this.holds = this.holds.filter((x) => x.at > this.now);
  }
}

const amount = fc.oneof(fc.bigInt({ min: 1n, max: 1000n }), fc.bigInt({ min: 1n, max: 100000000000000n }));
const percentHundredths = fc.integer({ min: 0, max: 10000 });
const event = fc.oneof(
  fc.record({
    type: fc.constant('request' as const),
    wallet: fc.integer({ min: 0, max: 1 }),
    requestCurrency: fc.constantFrom('UGX', 'USD'),
    method: fc.constantFrom<PaymentMethod>('MOBILE_MONEY', 'CARD', 'BANK', 'CRYPTO'),
    amount,
    percentHundredths,
    fixed: fc.bigInt({ min: 0n, max: 5000n }),
    bearer: fc.constantFrom<FeeBearer>('merchant', 'customer'),
  }),
  fc.record({ type: fc.constant('report' as const), index: fc.nat(), outcome: fc.constantFrom<Status>('COMPLETED', 'COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED') }),
  fc.record({ type: fc.constant('advance' as const), days: fc.integer({ min: 0, max: 200 }) }),
  fc.record({ type: fc.constant('release' as const) }),
);

it('keeps every ledger invariant over random sequences of collections, completions, failures and releases', () => {
  const settings = fc.record({
    reserveHundredths: percentHundredths,
    reserveMonths: fc.integer({ min: 0, max: 24 }),
    cardSettlementDays: fc.integer({ min: 0, max: 60 }),
  });
  fc.assert(
    fc.property(settings, fc.array(event, { maxLength: 80 }), (s, events) => {
      const book = new Book(s);
      const model = new Model(s);
      for (const e of events) {
        if (e.type === 'request') {
          book.request(e);
          model.request(e);
        } else if (e.type === 'report') {
          book.report(e.index, e.outcome);
          model.report(e.index, e.outcome);
        } else if (e.type === 'advance') {
          book.now = addDaysUtc(book.now, e.days);
          model.now += e.days * 86_400_000;
        } else {
          book.releaseDue();
          model.release();
        }
        book.check(model);
      }
      book.now = addDaysUtc(book.now, 800);
      model.now += 800 * 86_400_000;
      book.releaseDue();
      model.release();
      book.check(model);
      expect(model.holds).toEqual([]);
      for (const h of book.holds) expect(h.released).toBe(true);
    }),
    { numRuns: 300 },
  );
});

it('never lets a repeated report credit a collection twice', () => {
  fc.assert(
    fc.property(amount, fc.integer({ min: 2, max: 6 }), (a, repeats) => {
      const settings = { reserveHundredths: 500, reserveMonths: 1, cardSettlementDays: 2 };
      const book = new Book(settings);
      const model = new Model(settings);
      const r: RequestEvent = { wallet: 0, requestCurrency: 'UGX', method: 'CARD', amount: a, percentHundredths: 300, fixed: 0n, bearer: 'merchant' };
      book.request(r);
      model.request(r);
      for (let i = 0; i < repeats; i++) {
        book.report(0, 'COMPLETED');
        model.report(0, 'COMPLETED');
      }
      book.report(0, 'FAILED');
      book.check(model);
      expect(book.journals.filter((j) => j.kind === 'collection_credit')).toHaveLength(1);
    }),
  );
});
