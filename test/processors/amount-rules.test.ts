// Proves the processors' whole-unit rules are request-time refusals, the same for every kind of money movement: through the public API in live, against the fakes of M-Pesa (whole KES; a reversal gives back the whole payment only) and MTN MoMo (zero-decimal currencies such as UGX), a collection, a refund and a payout the processor cannot move exactly each get 400 VALIDATION_ERROR naming `amount` and change nothing, nothing reaches the processor; amounts it can move are accepted. The rule itself (src/processors/amounts.ts) is checked on a table first, BTCPay's zero-decimal currencies included.
import { checkAmount } from '../../src/processors/amounts';
import type { AmountAsked } from '../../src/processors/amounts';
import { btcpayProcessor } from '../../src/processors/btcpay';
import { mpesaProcessor } from '../../src/processors/mpesa';
import { mtnMomoProcessor } from '../../src/processors/mtn-momo';
import { paystackProcessor } from '../../src/processors/paystack';
import { sandboxProcessor } from '../../src/processors/sandbox';
import { FakeMpesa } from '../fakes/mpesa';
import { FakeMtnMomo } from '../fakes/mtn-momo';
import { FAST_PROCESSORS, liveMerchant, secretOf, walletOf } from '../helpers/live';
import type { LiveMerchant } from '../helpers/live';
import { expectOk } from '../helpers/merchants';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

const transport = { baseUrl: 'http://127.0.0.1:9', timeoutMs: 1000, tokenMarginMs: 0 };
const processors = {
  sandbox: sandboxProcessor({ mmSuccess: [], mmFailure: [], mmDelayMs: 0 }),
  mpesa: mpesaProcessor(transport),
  mtn_momo: mtnMomoProcessor(transport),
  paystack: paystackProcessor({ baseUrl: transport.baseUrl, timeoutMs: 1000 }),
  btcpay: btcpayProcessor({ timeoutMs: 1000 }),
};

describe('checkAmount, the one rule for every kind', () => {
  const cases: [keyof typeof processors, AmountAsked, string | null][] = [
    ['mpesa', { kind: 'collection', amountMinor: 150000n, currency: 'KES' }, null],
    ['mpesa', { kind: 'collection', amountMinor: 1050n, currency: 'KES' }, 'amount: the processor takes KES in whole units, without decimals'],
    ['mpesa', { kind: 'collection', amountMinor: 1000n, currency: 'KES', feeIncluded: true }, null],
    ['mpesa', { kind: 'collection', amountMinor: 1050n, currency: 'KES', feeIncluded: true }, 'amount: the processor takes KES in whole units, without decimals (fee included)'],
    ['mpesa', { kind: 'payout', amountMinor: 1050n, currency: 'KES' }, 'amount: the processor pays out KES in whole units, without decimals'],
    ['mpesa', { kind: 'payout', amountMinor: 1000n, currency: 'KES' }, null],
    ['mpesa', { kind: 'payout', amountMinor: 1000n, currency: 'UGX' }, 'currency: the chosen processor does not take UGX'],
    ['mpesa', { kind: 'refund', amountMinor: 150000n, currency: 'KES', paidMinor: 150000n }, null],
    ['mpesa', { kind: 'refund', amountMinor: 50000n, currency: 'KES', paidMinor: 150000n }, 'amount: the processor refunds a whole payment only: leave amount out, or send 1500.00 KES'],
    ['mpesa', { kind: 'refund', amountMinor: 1050n, currency: 'KES', paidMinor: 150000n }, 'amount: the processor refunds KES in whole units, without decimals'],
    ['mtn_momo', { kind: 'collection', amountMinor: 10050n, currency: 'UGX' }, 'amount: the processor takes UGX in whole units, without decimals'],
    ['mtn_momo', { kind: 'refund', amountMinor: 10050n, currency: 'UGX', paidMinor: 5000000n }, 'amount: the processor refunds UGX in whole units, without decimals'],
    ['mtn_momo', { kind: 'refund', amountMinor: 10000n, currency: 'UGX', paidMinor: 5000000n }, null],
    ['mtn_momo', { kind: 'payout', amountMinor: 10050n, currency: 'UGX' }, 'amount: the processor pays out UGX in whole units, without decimals'],
    ['mtn_momo', { kind: 'payout', amountMinor: 10050n, currency: 'EUR' }, null],
    ['paystack', { kind: 'refund', amountMinor: 10050n, currency: 'NGN', paidMinor: 2500000n }, null],
    ['btcpay', { kind: 'collection', amountMinor: 10050n, currency: 'JPY' }, 'amount: the processor takes JPY in whole units, without decimals'],
    ['btcpay', { kind: 'refund', amountMinor: 10050n, currency: 'JPY', paidMinor: 500000n }, 'amount: the processor refunds JPY in whole units, without decimals'],
    ['btcpay', { kind: 'refund', amountMinor: 250n, currency: 'USD', paidMinor: 500n }, null],
    ['sandbox', { kind: 'payout', amountMinor: 10050n, currency: 'UGX' }, null],
    ['sandbox', { kind: 'refund', amountMinor: 13n, currency: 'UGX', paidMinor: 5000000n }, null],
  ];

  it.each(cases)('%s, %o: %s', (serviceType, asked, refusal) => {
    const checked = checkAmount(processors[serviceType], asked);
    expect(checked.refused ? `${checked.refused.field}: ${checked.refused.message}` : null).toBe(refusal);
    if (!checked.refused) expect(checked.text).toMatch(/^\d+(\.\d\d)?$/);
  });
});

describe('through the public API, in live against the processors\' fakes', () => {
  let mpesa: FakeMpesa;
  let mtn: FakeMtnMomo;
  let hooks: Receiver;
  let svc: TestService;
  let kes: LiveMerchant;
  let ugx: LiveMerchant;
  let kesPaid: string;
  let ugxPaid: string;
  let seq = 0;
  const ref = (prefix: string) => `${prefix}-${process.pid}-${++seq}`;

  /** a merchant whose one MID also disburses, with a token allowed to (live needs an IP allowlist) */
  async function payingMerchant(o: Parameters<typeof liveMerchant>[1]): Promise<LiveMerchant> {
    const m = await liveMerchant(svc, o);
    expectOk(await svc.admin.patch(`/v1/admin/mids/${m.midId}`, { disburses: true }), 'updateMid');
    // in live a first allowlist lets a token disburse, so through the API it waits for its notice; set here as landed
    await svc.services.db.none("UPDATE api_tokens SET ip_allowlist = '{127.0.0.1/32, ::1/128}' WHERE id = $1", [m.apiTokenId]);
    return m;
  }

  async function paid(m: LiveMerchant, body: Record<string, unknown>): Promise<string> {
    const reference = expectOk(await m.client.post('/v1/collections/request-to-pay', { ...body, payment_method: 'MOBILE_MONEY', merchant_reference: ref('FUND'), narration: 'Order for live goods' })).gateway_reference;
    await eventually(async () => expectOk(await m.client.get(`/v1/collections/${reference}`)).transaction_status === 'COMPLETED', 15_000, 'funded');
    return reference;
  }

  beforeAll(async () => {
    mpesa = new FakeMpesa({ answerAfterMs: 10 });
    mtn = new FakeMtnMomo({ answerAfterMs: 10 });
    await Promise.all([mpesa.start(), mtn.start()]);
    hooks = await startReceiver();
    svc = await startTestService({ env: { APP_ENV: 'live', MPESA_BASE_URL: mpesa.url, MTN_MOMO_BASE_URL: mtn.url, ...FAST_PROCESSORS } });
    kes = await payingMerchant({ serviceType: 'mpesa', currency: 'KES', credentials: mpesa.payoutCredentials(), webhookUrl: hooks.url });
    ugx = await payingMerchant({ serviceType: 'mtn_momo', currency: 'UGX', credentials: mtn.refundCredentials(), webhookUrl: hooks.url });
    kesPaid = await paid(kes, { currency: 'KES', amount: 1500, account_number: '254708374149' });
    await paid(kes, { currency: 'KES', amount: 1500, account_number: '254708374149' }); // funds for the payout beside the whole refund
    ugxPaid = await paid(ugx, { currency: 'UGX', amount: 50000, account_number: '256772123456' });
  }, 180_000); // a service start is over a minute on a loaded machine

  afterAll(async () => {
    await svc?.close();
    await hooks?.close();
    await mpesa?.stop();
    await mtn?.stop();
  });

  /** What a refusal must leave as it was: the merchant's rows, its wallet, the paid collection, the calls the processor saw. */
  async function state(m: LiveMerchant, currency: string, collection: string, fake: { calls: unknown[] }) {
    const db = svc.services.db;
    const count = async (sql: string) => (await db.one<{ n: number }>(sql, [m.businessId])).n;
    return {
      collections: await count('SELECT count(*)::int AS n FROM collections WHERE business_id = $1'),
      refunds: await count('SELECT count(*)::int AS n FROM refunds WHERE business_id = $1'),
      disbursements: await count('SELECT count(*)::int AS n FROM disbursements WHERE business_id = $1'),
      postings: await count('SELECT count(*)::int AS n FROM postings p JOIN ledger_accounts a ON a.id = p.account_id WHERE a.business_id = $1'),
      wallet: await walletOf(m, currency),
      paid: expectOk(await m.client.get(`/v1/collections/${collection}`)).refunded_amount,
      calls: fake.calls.length,
    };
  }

  /** The request is refused with one field error on `amount`, its message `message`, and nothing changes. */
  async function refusedUnchanged(m: LiveMerchant, currency: string, collection: string, fake: { calls: unknown[] }, send: () => Promise<{ status: number; body: any }>, message: string) {
    const before = await state(m, currency, collection, fake);
    const res = await send();
    expect([res.status, res.body.code, res.body.status, res.body.data]).toEqual([400, 'VALIDATION_ERROR', 'error', [{ field: 'amount', message }]]);
    expect(await state(m, currency, collection, fake)).toEqual(before);
  }

  const payout = (currency: string, amount: number, account_number: string) => ({
    amount, currency, payment_method: 'MOBILE_MONEY', account_number, account_name: 'Jane Driver', merchant_reference: ref('PAY'), narration: 'Weekly earnings',
  });

  describe('M-Pesa: whole KES, and a reversal gives back the whole payment', () => {
    const refuse = (send: () => Promise<{ status: number; body: any }>, message: string) => refusedUnchanged(kes, 'KES', kesPaid, mpesa, send, message);

    it('refuses a 10.50 KES collection when it is requested', () =>
      refuse(() => kes.client.post('/v1/collections/request-to-pay', { currency: 'KES', amount: 10.5, payment_method: 'MOBILE_MONEY', account_number: '254708374149', merchant_reference: ref('ORD'), narration: 'Order of books' }),
        'the processor takes KES in whole units, without decimals'));

    it('refuses a 10.50 KES payout when it is requested, not accepted and FAILED later', () =>
      refuse(() => kes.client.post('/v1/disbursements', payout('KES', 10.5, '254708374149'), secretOf(kes)), 'the processor pays out KES in whole units, without decimals'));

    it('refuses a partial refund when it is requested', () =>
      refuse(() => kes.client.post(`/v1/collections/${kesPaid}/refunds`, { amount: 500, merchant_reference: ref('RFD') }),
        'the processor refunds a whole payment only: leave amount out, or send 1500.00 KES'));

    it('refuses a refund of 10.50 KES for its decimals first', () =>
      refuse(() => kes.client.post(`/v1/collections/${kesPaid}/refunds`, { amount: 10.5, merchant_reference: ref('RFD') }), 'the processor refunds KES in whole units, without decimals'));

    it('accepts a whole-shilling payout and the refund of the whole payment', async () => {
      const d = await kes.client.post('/v1/disbursements', payout('KES', 500, '254708374149'), secretOf(kes));
      expect([d.status, d.body.data?.amount]).toEqual([200, 500]);
      const r = await kes.client.post(`/v1/collections/${kesPaid}/refunds`, { merchant_reference: ref('RFD') });
      expect([r.status, r.body.data?.amount]).toEqual([200, 1500]);
    });
  });

  describe('MTN MoMo: no fractions of a zero-decimal currency (UGX)', () => {
    const refuse = (send: () => Promise<{ status: number; body: any }>, message: string) => refusedUnchanged(ugx, 'UGX', ugxPaid, mtn, send, message);

    it('refuses a 100.50 UGX collection when it is requested', () =>
      refuse(() => ugx.client.post('/v1/collections/request-to-pay', { currency: 'UGX', amount: 100.5, payment_method: 'MOBILE_MONEY', account_number: '256772123456', merchant_reference: ref('ORD'), narration: 'Order of books' }),
        'the processor takes UGX in whole units, without decimals'));

    it('refuses a 100.50 UGX payout when it is requested', () =>
      refuse(() => ugx.client.post('/v1/disbursements', payout('UGX', 100.5, '256772123456'), secretOf(ugx)), 'the processor pays out UGX in whole units, without decimals'));

    it('refuses a 100.50 UGX refund when it is requested', () =>
      refuse(() => ugx.client.post(`/v1/collections/${ugxPaid}/refunds`, { amount: 100.5, merchant_reference: ref('RFD') }), 'the processor refunds UGX in whole units, without decimals'));

    it('accepts a whole-unit payout and a partial refund in whole units', async () => {
      const d = await ugx.client.post('/v1/disbursements', payout('UGX', 1000, '256772123456'), secretOf(ugx));
      expect([d.status, d.body.data?.amount]).toEqual([200, 1000]);
      const r = await ugx.client.post(`/v1/collections/${ugxPaid}/refunds`, { amount: 100, merchant_reference: ref('RFD') });
      expect([r.status, r.body.data?.amount]).toEqual([200, 100]);
    });
  });
});
