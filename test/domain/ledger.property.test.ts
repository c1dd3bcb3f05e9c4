// Proves with random event sequences that the ledger functions keep every invariant: postings balance per currency, balances are sums of postings, no wallet goes negative, no collection is credited twice.
import fc from 'fast-check';
import { canTransition } from '../../src/domain/collection';
import type { PaymentMethod, Status } from '../../src/domain/collection';
import { feeOf, splitFee } from '../../src/domain/fees';
import type { FeeBearer } from '../../src/domain/fees';
import { convertMinor, pickRate } from '../../src/domain/fx';
import { accountName, addDaysUtc, assertBalanced, completionPlan, releasePlan, sumByAccount, walletTotal } from '../../src/domain/ledger';
import type { HoldBucket, PostingDraft } from '../../src/domain/ledger';

const WALLETS = [
  { id: 1, currency: 'UGX' },
  { id: 2, currency: 'USD' },
];
const RATES = [{ base: 'USD', quote: 'UGX', rate: '3712.345678901234' }];

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

  constructor(readonly settings: { reservePercent: string; reserveMonths: number; cardSettlementDays: number }) {}

  post(kind: string, collection: number | null, postings: PostingDraft[]) {
    assertBalanced(postings);
    if (kind === 'collection_credit' && this.journals.some((j) => j.kind === kind && j.collection === collection)) {
      throw new Error('second credit of one collection'); // journals_one_credit
    }
    this.journals.push({ kind, collection, postings });
    for (const p of postings) this.running.set(accountName(p.account), (this.running.get(accountName(p.account)) ?? 0n) + p.amountMinor);
  }

  request(wallet: number, requestCurrency: string, method: PaymentMethod, amountMinor: bigint, percent: string, fixedMinor: bigint, bearer: FeeBearer) {
    const w = WALLETS[wallet];
    const rate = requestCurrency === w.currency ? null : pickRate(requestCurrency, w.currency, RATES);
    const account = rate ? convertMinor(amountMinor, rate) : amountMinor;
    if (account <= 0n) return; // refused at request time (too small once converted)
    const split = splitFee(account, feeOf(account, { percent, fixedMinor }), bearer);
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

  check() {
    const all = this.journals.flatMap((j) => j.postings);
    const perCurrency = new Map<string, bigint>();
    for (const p of all) perCurrency.set(p.account.currency, (perCurrency.get(p.account.currency) ?? 0n) + p.amountMinor);
    for (const sum of perCurrency.values()) expect(sum).toBe(0n);

    const sums = sumByAccount(all);
    expect(sums).toEqual(this.running);

    for (const w of WALLETS) {
      const part = (kind: string) => sums.get(`${w.id}:${w.currency}:${kind}`) ?? 0n;
      const parts = { availableMinor: part('available'), pendingMinor: part('pending'), reservedMinor: part('reserved') };
      expect(parts.availableMinor >= 0n && parts.pendingMinor >= 0n && parts.reservedMinor >= 0n).toBe(true);
      const held = (bucket: HoldBucket) =>
        this.holds.filter((h) => h.walletId === w.id && h.bucket === bucket && !h.released).reduce((a, h) => a + h.amountMinor, 0n);
      expect(parts.pendingMinor).toBe(held('pending'));
      expect(parts.reservedMinor).toBe(held('reserved'));
      const credited = this.collections.filter((c) => c.walletId === w.id && c.status === 'COMPLETED').reduce((a, c) => a + c.totalCreditMinor, 0n);
      expect(walletTotal(parts)).toBe(credited);
    }

    this.collections.forEach((c, i) => {
      const credits = this.journals.filter((j) => j.kind === 'collection_credit' && j.collection === i).length;
      expect(credits).toBe(c.status === 'COMPLETED' ? 1 : 0);
    });
  }
}

const amount = fc.oneof(fc.bigInt({ min: 1n, max: 1000n }), fc.bigInt({ min: 1n, max: 100000000000000n }));
const percent = fc.integer({ min: 0, max: 10000 }).map((n) => (n / 100).toFixed(2));
const event = fc.oneof(
  fc.record({
    type: fc.constant('request' as const),
    wallet: fc.integer({ min: 0, max: 1 }),
    requestCurrency: fc.constantFrom('UGX', 'USD'),
    method: fc.constantFrom<PaymentMethod>('MOBILE_MONEY', 'CARD', 'BANK', 'CRYPTO'),
    amount,
    percent,
    fixed: fc.bigInt({ min: 0n, max: 5000n }),
    bearer: fc.constantFrom<FeeBearer>('merchant', 'customer'),
  }),
  fc.record({ type: fc.constant('report' as const), index: fc.nat(), outcome: fc.constantFrom<Status>('COMPLETED', 'COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED') }),
  fc.record({ type: fc.constant('advance' as const), days: fc.integer({ min: 0, max: 200 }) }),
  fc.record({ type: fc.constant('release' as const) }),
);

it('keeps every ledger invariant over random sequences of collections, completions, failures and releases', () => {
  const settings = fc.record({
    reservePercent: percent,
    reserveMonths: fc.integer({ min: 0, max: 24 }),
    cardSettlementDays: fc.integer({ min: 0, max: 60 }),
  });
  fc.assert(
    fc.property(settings, fc.array(event, { maxLength: 80 }), (s, events) => {
      const book = new Book(s);
      for (const e of events) {
        if (e.type === 'request') book.request(e.wallet, e.requestCurrency, e.method, e.amount, e.percent, e.fixed, e.bearer);
        else if (e.type === 'report') book.report(e.index, e.outcome);
        else if (e.type === 'advance') book.now = addDaysUtc(book.now, e.days);
        else book.releaseDue();
        book.check();
      }
      book.now = addDaysUtc(book.now, 800);
      book.releaseDue();
      book.check();
      for (const h of book.holds) expect(h.released).toBe(true);
    }),
    { numRuns: 300 },
  );
});

it('never lets a repeated report credit a collection twice', () => {
  fc.assert(
    fc.property(amount, fc.integer({ min: 2, max: 6 }), (a, repeats) => {
      const book = new Book({ reservePercent: '5', reserveMonths: 1, cardSettlementDays: 2 });
      book.request(0, 'UGX', 'CARD', a, '3', 0n, 'merchant');
      for (let i = 0; i < repeats; i++) book.report(0, 'COMPLETED');
      book.report(0, 'FAILED');
      book.check();
      expect(book.journals.filter((j) => j.kind === 'collection_credit')).toHaveLength(1);
    }),
  );
});
