// Proves disbursements through the public API on the sandbox simulator: amount + fee held at once, then out of the wallet on COMPLETED (fee to revenue) or back on FAILED, a payout that stays PROCESSING, the signed webhook records, the audit entry, the Secret-Key and IP allowlist guard, the freeze, the limits, INSUFFICIENT_FUNDS, NO_ROUTE and bad input each refused without changing anything, replays and duplicates, PENDING_APPROVAL above the threshold, a reversal's own journal, and the list and its filters.
import { createHmac } from 'node:crypto';
import { eventually, mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { ledgerDrift } from '../../src/ledger/ledger';
import { startTestService } from '../helpers/service';
import type { Client, TestService } from '../helpers/service';

let svc: TestService;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '3600000', PROCESSOR_CHECK_SCHEDULE: '100ms,200ms', WEBHOOK_RETRY_SCHEDULE: '0s,100ms' } });
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(async () => {
  await svc?.close();
  await receiver?.close();
});

const db = () => svc.database.db;

/** A merchant whose UGX MOBILE_MONEY and BANK sandbox MIDs also disburse, with `funds` collected into its wallet. */
async function merchant(funds: number, o: Parameters<typeof setupMerchant>[1] = {}): Promise<MerchantSetup> {
  const m = await setupMerchant(svc, o);
  await db().none("UPDATE mids SET disburses = true WHERE business_id = $1 AND payment_method IN ('MOBILE_MONEY', 'BANK')", [m.businessId]);
  if (funds > 0) {
    const created = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ amount: funds, account_number: '256700000009' }));
    expect(created.status).toBe(200);
    expect((await m.client.post(`/v1/sandbox/collections/${created.body.data.gateway_reference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
  }
  return m;
}

const secret = (m: MerchantSetup) => ({ headers: { 'secret-key': m.apiSecret } });
const payout = (over: Record<string, unknown> = {}) => ({
  amount: 10000, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123456', account_name: 'Okello Transport Ltd',
  merchant_reference: ref('PAY'), narration: 'Driver payout', ...over,
});

async function balance(client: Client) {
  const res = await client.get('/v1/data/wallets/UGX/balance');
  expect(res.status).toBe(200);
  return res.body.data as { balance: number; available_balance: number; disbursement_held_balance: number };
}

async function status(m: MerchantSetup, reference: string, want: string) {
  return eventually(async () => {
    const r = await m.client.get(`/v1/disbursements/${reference}`, secret(m));
    return r.body.data.transaction_status === want ? r.body.data : undefined;
  }, 10_000, `disbursement ${reference} ${want}`);
}

/** What a refusal must leave as it was: the merchant's disbursements, journals, audit entries, the wallet. */
async function snapshot(m: MerchantSetup) {
  const n = await db().one('SELECT count(*)::int AS n FROM disbursements WHERE business_id = $1', [m.businessId]);
  const journals = await db().one('SELECT count(*)::int AS n FROM journals j JOIN disbursements d ON d.id = j.disbursement_id WHERE d.business_id = $1', [m.businessId]);
  const audit = await db().one("SELECT count(*)::int AS n FROM audit_log WHERE business_id = $1 AND action = 'createDisbursement'", [m.businessId]);
  return { disbursements: n.n, journals: journals.n, audit: audit.n, wallet: await balance(m.client) };
}

const journalsOf = async (id: string) => (await db().any('SELECT kind FROM journals WHERE disbursement_id = $1 ORDER BY id', [id])).map((j: { kind: string }) => j.kind);

describe('disbursements on the simulator', () => {
  it('holds amount + fee at once, then pays the amount out and the fee to revenue on COMPLETED, notifying the webhook', async () => {
    const m = await merchant(50000, { webhookUrl: receiver.url });
    await db().none("UPDATE businesses SET disbursement_fee_percent = 1.5, disbursement_fee_fixed_minor = 5000 WHERE id = $1", [m.businessId]);
    const res = await m.client.post('/v1/disbursements', payout({ amount: 20000 }), secret(m));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('accepted');
    expect(res.body.data).toMatchObject({ amount: 20000, fee: 350, currency: 'UGX', transaction_type: 'disbursement', bank_code: null, account_name: 'Okello Transport Ltd', narration: 'Driver payout' });
    expect(['PENDING', 'PROCESSING', 'COMPLETED']).toContain(res.body.data.transaction_status);
    const reference = res.body.data.gateway_reference;

    await status(m, reference, 'COMPLETED');
    expect(await balance(m.client)).toMatchObject({ balance: 29650, available_balance: 29650, disbursement_held_balance: 0 });
    expect(await journalsOf(res.body.data.id)).toEqual(['disbursement_hold', 'disbursement_out']);
    const out = await db().any(
      "SELECT a.kind, p.amount_minor FROM postings p JOIN journals j ON j.id = p.journal_id JOIN ledger_accounts a ON a.id = p.account_id WHERE j.disbursement_id = $1 AND j.kind = 'disbursement_out' ORDER BY a.kind",
      [res.body.data.id],
    );
    expect(out).toEqual([
      { kind: 'disbursement_hold', amount_minor: -2035000n },
      { kind: 'fee_revenue', amount_minor: 35000n },
      { kind: 'processor_clearing', amount_minor: 2000000n },
    ]);
    // the wallet statement shows both journals under the disbursement's own reference, and reconciles
    const from = new Date(Date.now() - 3_600_000).toISOString().slice(0, 19) + 'Z';
    const to = new Date(Date.now() + 3_600_000).toISOString().slice(0, 19) + 'Z';
    const st = await m.client.get(`/v1/data/wallets/UGX/statement?from=${from}&to=${to}`);
    expect(st.status).toBe(200);
    const lines = st.body.data.lines as { kind: string; reference_type: string; reference: string; change: { available: number; total: number } }[];
    expect(lines.filter((l) => l.reference_type === 'disbursement')).toEqual([
      expect.objectContaining({ kind: 'disbursement_hold', reference, change: expect.objectContaining({ available: -20350, total: 0 }) }),
      expect.objectContaining({ kind: 'disbursement_out', reference, change: expect.objectContaining({ available: 0, total: -20350 }) }),
    ]);
    expect(st.body.data.closing_balance.total).toBe(29650);
    const audit = await db().one("SELECT actor_type, actor_email, target_type, target_id FROM audit_log WHERE action = 'createDisbursement' AND business_id = $1", [m.businessId]);
    expect(audit).toEqual({ actor_type: 'api_token', actor_email: m.apiKey, target_type: 'disbursement', target_id: reference });

    const mine = () => receiver.received.filter((r) => JSON.parse(r.body).gateway_reference === reference);
    await eventually(async () => (mine().length === 2 ? true : undefined), 10_000, 'two notifications');
    const bodies = mine().map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => [b.sequence, b.transaction_status, b.transaction_type])).toEqual([[1, 'PROCESSING', 'disbursement'], [2, 'COMPLETED', 'disbursement']]);
    const first = mine()[0];
    const signed = `${first.headers['webhook-id']}.${first.headers['webhook-timestamp']}.${first.body}`;
    expect(first.headers['webhook-signature']).toBe(`v1,${createHmac('sha256', m.webhookHash).update(signed).digest('base64')}`);
  });

  it('returns amount and fee to available when the processor cannot pay (account ending in 502), and a BANK payout needs its bank_code', async () => {
    const m = await merchant(50000);
    await db().none('UPDATE businesses SET disbursement_fee_fixed_minor = 10000 WHERE id = $1', [m.businessId]);
    const res = await m.client.post('/v1/disbursements', payout({ payment_method: 'BANK', account_number: '0123456502', bank_code: '058' }), secret(m));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ payment_method: 'BANK', bank_code: '058', fee: 100 });
    expect((await balance(m.client)).available_balance).toBeLessThanOrEqual(50000);
    const failed = await status(m, res.body.data.gateway_reference, 'FAILED');
    expect(failed.failure_reason).toBe('The simulated processor could not pay this account');
    expect(await balance(m.client)).toMatchObject({ balance: 50000, available_balance: 50000, disbursement_held_balance: 0 });
    expect(await journalsOf(res.body.data.id)).toEqual(['disbursement_hold', 'disbursement_return']);
  });

  it('keeps amount and fee held while the processor has the payout (account ending in 503)', async () => {
    const m = await merchant(50000);
    const res = await m.client.post('/v1/disbursements', payout({ account_number: '256772123503' }), secret(m));
    await status(m, res.body.data.gateway_reference, 'PROCESSING');
    expect(await balance(m.client)).toMatchObject({ balance: 50000, available_balance: 40000, disbursement_held_balance: 10000 });
  });

  it('credits amount and fee back with its own journal when a completed payout is reversed', async () => {
    const m = await merchant(50000);
    await db().none('UPDATE businesses SET disbursement_fee_fixed_minor = 20000 WHERE id = $1', [m.businessId]);
    const res = await m.client.post('/v1/disbursements', payout(), secret(m));
    await status(m, res.body.data.gateway_reference, 'COMPLETED');
    expect((await balance(m.client)).balance).toBe(39800);
    // the simulator never reverses: the processor's word is what a status query of a real one returns
    const moved = await svc.services.disbursements.move(BigInt(res.body.data.id), { to: 'REVERSED', failureReason: 'The processor reversed the payment' });
    expect(moved?.status).toBe('REVERSED');
    expect(await svc.services.disbursements.move(BigInt(res.body.data.id), { to: 'REVERSED' })).toBeNull();
    expect(await balance(m.client)).toMatchObject({ balance: 50000, available_balance: 50000, disbursement_held_balance: 0 });
    expect(await journalsOf(res.body.data.id)).toEqual(['disbursement_hold', 'disbursement_out', 'disbursement_reversal']);
    // what npm run ledger:check reports: nothing, with every disbursement journal kind in the ledger
    expect(await ledgerDrift(db())).toEqual([]);
    const got = await m.client.get(`/v1/disbursements/${res.body.data.gateway_reference}`, secret(m));
    expect(got.body.data).toMatchObject({ transaction_status: 'REVERSED', failure_reason: 'The processor reversed the payment' });
  });

  it('waits in PENDING_APPROVAL above the wallet threshold, held and not sent', async () => {
    const m = await merchant(50000);
    await db().none("UPDATE wallets SET disbursement_approval_threshold_minor = 1000000 WHERE business_id = $1 AND currency = 'UGX'", [m.businessId]);
    const at = await m.client.post('/v1/disbursements', payout({ amount: 10000 }), secret(m));
    expect(at.body.data.transaction_status).not.toBe('PENDING_APPROVAL');
    const above = await m.client.post('/v1/disbursements', payout({ amount: 10000.01 }), secret(m));
    expect(above.body.data).toMatchObject({ transaction_status: 'PENDING_APPROVAL', pending_reason: 'awaiting_approval' });
    await status(m, at.body.data.gateway_reference, 'COMPLETED');
    const row = await db().one('SELECT send_state, send_attempts, approval_expires_at FROM disbursements WHERE id = $1', [above.body.data.id]);
    expect(row).toMatchObject({ send_state: 'held', send_attempts: 0 });
    expect(row.approval_expires_at.getTime() - Date.parse(above.body.data.created_at)).toBeGreaterThanOrEqual(24 * 3_600_000 - 1000);
    expect((await balance(m.client)).disbursement_held_balance).toBe(10000.01);
  });
});

describe('refusals change nothing', () => {
  it('refuses a missing or wrong Secret-Key on every operation with 401', async () => {
    const m = await merchant(50000);
    const before = await snapshot(m);
    for (const opts of [undefined, { headers: { 'secret-key': m.apiSecret + 'x' } }, { headers: { 'secret-key': '' } }, { headers: { 'secret-key': 'sk_sandbox_wrong' } }]) {
      const res = await m.client.post('/v1/disbursements', payout(), opts);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    }
    expect((await m.client.get('/v1/disbursements')).status).toBe(401);
    expect((await m.client.get('/v1/disbursements', { headers: { 'secret-key': 'sk_sandbox_wrong' } })).status).toBe(401);
    expect((await m.client.get('/v1/disbursements/DBNOSUCHREFERENCE', { headers: { 'secret-key': 'sk_sandbox_wrong' } })).status).toBe(401);
    // another token's secret is no better
    const other = await merchant(0);
    expect((await m.client.post('/v1/disbursements', payout(), secret(other))).status).toBe(401);
    expect(await snapshot(m)).toEqual(before);
  });

  it('refuses a call from an address off the API token allowlist with 403, audited; accepts one on it', async () => {
    const m = await merchant(50000);
    await db().none("UPDATE api_tokens SET ip_allowlist = '{10.0.0.0/8}' WHERE id = $1", [m.apiTokenId]);
    const before = await snapshot(m);
    const res = await m.client.post('/v1/disbursements', payout(), secret(m));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('IP_NOT_ALLOWED');
    expect((await m.client.get('/v1/disbursements', secret(m))).status).toBe(403);
    expect(await snapshot(m)).toEqual(before);
    const audit = await db().any("SELECT actor_type, actor_email, after FROM audit_log WHERE action = 'disbursementAddressRefused' AND business_id = $1 ORDER BY id", [m.businessId]);
    expect(audit).toEqual([
      { actor_type: 'api_token', actor_email: m.apiKey, after: { operation: 'createDisbursement', client_address: '127.0.0.1', reason: 'not_on_allowlist' } },
      { actor_type: 'api_token', actor_email: m.apiKey, after: { operation: 'listDisbursements', client_address: '127.0.0.1', reason: 'not_on_allowlist' } },
    ]);
    // a wrong secret is refused before the address is looked at, and is not audited as an address refusal
    expect((await m.client.post('/v1/disbursements', payout(), { headers: { 'secret-key': 'sk_wrong' } })).status).toBe(401);
    await db().none("UPDATE api_tokens SET ip_allowlist = '{10.0.0.0/8, 127.0.0.1/32}' WHERE id = $1", [m.apiTokenId]);
    expect((await m.client.post('/v1/disbursements', payout(), secret(m))).status).toBe(200);
    expect(await db().one("SELECT count(*)::int AS n FROM audit_log WHERE action = 'disbursementAddressRefused' AND business_id = $1", [m.businessId])).toEqual({ n: 2 });
  });

  it('refuses a frozen business with DISBURSEMENTS_FROZEN', async () => {
    const m = await merchant(50000);
    await db().none('UPDATE businesses SET disbursements_frozen = true WHERE id = $1', [m.businessId]);
    const before = await snapshot(m);
    const res = await m.client.post('/v1/disbursements', payout(), secret(m));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('DISBURSEMENTS_FROZEN');
    expect(await snapshot(m)).toEqual(before);
  });

  it('refuses above the per-disbursement limit and past the daily limit with LIMIT_EXCEEDED; failed ones do not count', async () => {
    const m = await merchant(50000);
    await db().none("UPDATE wallets SET disbursement_limit_minor = 1500000, disbursement_daily_limit_minor = 2500000 WHERE business_id = $1 AND currency = 'UGX'", [m.businessId]);
    let before = await snapshot(m);
    const big = await m.client.post('/v1/disbursements', payout({ amount: 15000.01 }), secret(m));
    expect(big.status).toBe(400);
    expect(big.body.code).toBe('LIMIT_EXCEEDED');
    expect(big.body.message).toContain('per-disbursement limit');
    expect(await snapshot(m)).toEqual(before);

    const failed = await m.client.post('/v1/disbursements', payout({ amount: 15000, account_number: '256772123502' }), secret(m));
    await status(m, failed.body.data.gateway_reference, 'FAILED');
    const within = await m.client.post('/v1/disbursements', payout({ amount: 15000 }), secret(m));
    expect(within.status).toBe(200);
    // settled first, so that what the refusal leaves is all the snapshot sees
    await status(m, within.body.data.gateway_reference, 'COMPLETED');
    before = await snapshot(m);
    const past = await m.client.post('/v1/disbursements', payout({ amount: 10000.01 }), secret(m));
    expect(past.status).toBe(400);
    expect(past.body.code).toBe('LIMIT_EXCEEDED');
    expect(past.body.message).toContain('daily limit');
    expect(await snapshot(m)).toEqual(before);
    expect((await m.client.post('/v1/disbursements', payout({ amount: 10000 }), secret(m))).status).toBe(200);
  });

  it('refuses with INSUFFICIENT_FUNDS when available cannot cover amount + fee', async () => {
    const m = await merchant(10000);
    await db().none('UPDATE businesses SET disbursement_fee_fixed_minor = 1 WHERE id = $1', [m.businessId]);
    const before = await snapshot(m);
    const res = await m.client.post('/v1/disbursements', payout({ amount: 10000 }), secret(m));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INSUFFICIENT_FUNDS', message: 'The UGX wallet has 10,000 UGX available; this disbursement needs 10,000.01 UGX with its fee' });
    expect(await snapshot(m)).toEqual(before);
    expect((await m.client.post('/v1/disbursements', payout({ amount: 9999.99 }), secret(m))).status).toBe(200);
  });

  it('refuses bad input with every broken rule, and no route or no wallet with their codes', async () => {
    const m = await merchant(50000);
    const before = await snapshot(m);
    const decimals = await m.client.post('/v1/disbursements', payout({ amount: 10.001 }), secret(m));
    expect(decimals.body).toMatchObject({ code: 'VALIDATION_ERROR', data: [{ field: 'amount', message: expect.stringContaining('decimal') }] });
    const bad = await m.client.post('/v1/disbursements', payout({ account_number: '12345678', bank_code: '058' }), secret(m));
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
    expect(bad.body.data).toEqual([
      { field: 'account_number', message: 'must be the phone number, 10 to 15 digits, country code first, no +' },
      { field: 'bank_code', message: 'is only for payment_method BANK' },
    ]);
    const noBank = await m.client.post('/v1/disbursements', payout({ payment_method: 'BANK', account_number: '0123456789' }), secret(m));
    expect(noBank.body.data).toEqual([{ field: 'bank_code', message: 'is required when payment_method is BANK' }]);
    const schema = await m.client.post('/v1/disbursements', { ...payout(), amount: -1, payment_method: 'CARD', extra: 1 }, secret(m));
    expect(schema.status).toBe(400);
    expect(schema.body.code).toBe('VALIDATION_ERROR');
    expect((await m.client.post('/v1/disbursements', payout({ currency: 'KES' }), secret(m))).body.code).toBe('UNSUPPORTED_CURRENCY');
    await db().none('UPDATE mids SET disburses = false WHERE business_id = $1', [m.businessId]);
    expect((await m.client.post('/v1/disbursements', payout(), secret(m))).body.code).toBe('NO_ROUTE');
    expect(await snapshot(m)).toEqual(before);
  });
});

describe('idempotency, reads and lists', () => {
  it('lists the designated payee account numbers among the sandbox scenarios', async () => {
    const m = await merchant(0);
    const res = await m.client.get('/v1/sandbox/scenarios');
    const payouts = res.body.data.filter((s: { transaction_type: string }) => s.transaction_type === 'disbursement');
    expect(payouts.map((s: { name: string; value: string; outcome: string }) => `${s.name}:${s.value}:${s.outcome}`)).toEqual([
      'DISBURSEMENT_SUCCESS:any other account_number:COMPLETED',
      'DISBURSEMENT_FAILURE:any account_number ending in 502:FAILED',
      'DISBURSEMENT_STAYS_PROCESSING:any account_number ending in 503:PROCESSING',
    ]);
  });

  it('answers a replay with the first disbursement and refuses the reference with another body', async () => {
    const m = await merchant(50000);
    const body = payout();
    const first = await m.client.post('/v1/disbursements', body, secret(m));
    const again = await m.client.post('/v1/disbursements', body, secret(m));
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.gateway_reference).toBe(first.body.data.gateway_reference);
    await status(m, first.body.data.gateway_reference, 'COMPLETED');
    const before = await snapshot(m);
    const other = await m.client.post('/v1/disbursements', { ...body, amount: 10001 }, secret(m));
    expect(other.status).toBe(400);
    expect(other.body.code).toBe('DUPLICATE_MERCHANT_REFERENCE');
    expect(await snapshot(m)).toEqual(before);
  });

  it('reads only the caller\'s own, and lists newest first with filters and cursor paging', async () => {
    const m = await merchant(50000);
    const made: string[] = [];
    for (const account of ['256772123456', '256772123502', '256772123457']) {
      made.push((await m.client.post('/v1/disbursements', payout({ amount: 1000, account_number: account }), secret(m))).body.data.gateway_reference);
    }
    await status(m, made[1], 'FAILED');
    const other = await merchant(0);
    expect((await other.client.get(`/v1/disbursements/${made[0]}`, secret(other))).status).toBe(404);
    const page1 = await m.client.get('/v1/disbursements?per_page=2', secret(m));
    expect(page1.body.data.map((d: { gateway_reference: string }) => d.gateway_reference)).toEqual([made[2], made[1]]);
    expect(page1.body.paging.total).toBe(3);
    const page2 = await m.client.get(`/v1/disbursements?per_page=2&cursor=${encodeURIComponent(page1.body.paging.next_cursor)}`, secret(m));
    expect(page2.body.data.map((d: { gateway_reference: string }) => d.gateway_reference)).toEqual([made[0]]);
    const failed = await m.client.get('/v1/disbursements?status=FAILED', secret(m));
    expect(failed.body.data.map((d: { gateway_reference: string }) => d.gateway_reference)).toEqual([made[1]]);
    expect((await m.client.get('/v1/disbursements?status=NOPE', secret(m))).status).toBe(400);
  });
});
