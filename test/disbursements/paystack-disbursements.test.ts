// Proves disbursements through the public API against Paystack Transfers (the project's fake Paystack over real HTTP): a bank payout makes a recipient and a transfer under our reference and COMPLETES; a transfer Paystack fails returns amount and fee; a signed transfer.reversed webhook on the MID's route prompts the query that finds a completed payout reversed, which credits amount and fee back with its own journal; a forged one changes nothing; a transfer Paystack reports reversed while we still have the payout PROCESSING (its success never reached us) ends FAILED with amount and fee back in the wallet, one webhook for that change.
import { FakePaystack } from '../fakes/paystack';
import { eventually, mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { expectOk } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { FAST_PROCESSORS, hooksFor, secretOf, walletOf } from '../helpers/live';
import { startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { ledgerDrift } from '../../src/ledger/ledger';

let fake: FakePaystack;
let svc: TestService;
let m: MerchantSetup;
let midId: number;
let hooks: Receiver;

beforeAll(async () => {
  fake = new FakePaystack();
  await fake.start();
  hooks = await startReceiver();
  svc = await startTestService({ env: { PAYSTACK_BASE_URL: fake.url, SANDBOX_MM_DELAY_MS: '3600000', ...FAST_PROCESSORS } });
  // funds through the simulator; payouts through a Paystack MID, the only one that disburses
  m = await setupMerchant(svc, { defaultCurrency: 'NGN', webhookUrl: hooks.url });
  const created = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ currency: 'NGN', amount: 200000, account_number: '256700000009' }));
  expect((await m.client.post(`/v1/sandbox/collections/${expectOk(created).gateway_reference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
  const mid = expectOk(await svc.admin.post(`/v1/admin/businesses/${m.businessId}/mids`, {
    business_name: 'Test Shop', service_type: 'paystack', payment_method: 'BANK', currency: 'NGN', credentials: { secret_key: fake.secretKey },
  }));
  midId = mid.id;
  await svc.services.db.none('UPDATE mids SET disburses = true WHERE id = $1', [midId]);
  await svc.services.db.none('UPDATE businesses SET disbursement_fee_fixed_minor = 5000 WHERE id = $1', [m.businessId]);
  fake.webhookUrl = `${svc.url}/callbacks/paystack/mids/${midId}`;
}, 180_000); // a service start is over a minute on a loaded machine

afterAll(async () => {
  await svc?.close();
  await fake?.stop();
  await hooks?.close();
});

const secret = () => secretOf(m);
const wallet = () => walletOf(m, 'NGN');
const payout = (amount: number) => ({ amount, currency: 'NGN', payment_method: 'BANK', account_number: '0123456789', bank_code: '058', account_name: 'Adaeze Okafor', merchant_reference: ref('PAY') });

async function ended(reference: string, status: string) {
  return eventually(async () => {
    const d = expectOk(await m.client.get(`/v1/disbursements/${reference}`, secret()));
    return d.transaction_status === status ? d : undefined;
  }, 15_000, `disbursement ${status}`);
}

const ourReference = async (id: string) => (await svc.services.db.one('SELECT reference FROM disbursements WHERE id = $1', [id])).reference as string;

it('pays a bank account by recipient and transfer under our reference, and completes', async () => {
  const before = await wallet();
  const d = expectOk(await m.client.post('/v1/disbursements', payout(25000), secret()));
  await ended(d.gateway_reference, 'COMPLETED');
  const t = fake.transfers.get(await ourReference(d.id))!;
  expect(t).toMatchObject({ amount: 2_500_000, currency: 'NGN' });
  expect(t.recipient).toMatchObject({ type: 'nuban', accountNumber: '0123456789', bankCode: '058' });
  expect(await wallet()).toMatchObject({ balance: before.balance - 25050, disbursement_held_balance: 0 });
});

it('returns amount and fee when Paystack fails the transfer', async () => {
  const before = await wallet();
  fake.failNextTransfer('Account number is not valid');
  const d = expectOk(await m.client.post('/v1/disbursements', payout(1000), secret()));
  await ended(d.gateway_reference, 'FAILED');
  expect(await wallet()).toEqual(before);
});

it('credits amount and fee back when a signed transfer.reversed prompts the query; a forged event changes nothing', async () => {
  const d = expectOk(await m.client.post('/v1/disbursements', payout(3000), secret()));
  await ended(d.gateway_reference, 'COMPLETED');
  const paid = await wallet();
  const reference = await ourReference(d.id);
  // a transfer.reversed not signed with the MID's key is refused and prompts nothing
  const forged = JSON.stringify({ event: 'transfer.reversed', data: { reference, status: 'reversed' } });
  const refused = await svc.anon.post(`/callbacks/paystack/mids/${midId}`, undefined, { raw: forged, headers: { 'content-type': 'application/json', 'x-paystack-signature': 'f'.repeat(128) } });
  expect(refused.status).toBe(401);
  const row = await svc.services.db.one('SELECT status, next_check_at FROM disbursements WHERE id = $1', [d.id]);
  expect(row).toEqual({ status: 'COMPLETED', next_check_at: null });
  // Paystack reverses it and sends its signed transfer.reversed to the MID's route
  fake.reverseTransfer(reference);
  const reversed = await ended(d.gateway_reference, 'REVERSED');
  expect(reversed.failure_reason).toBe('Paystack reversed the payout: the money came back to the balance');
  expect(await wallet()).toMatchObject({ balance: paid.balance + 3050, available_balance: paid.available_balance + 3050 });
  const kinds = (await svc.services.db.any('SELECT kind FROM journals WHERE disbursement_id = $1 ORDER BY id', [d.id])).map((j: { kind: string }) => j.kind);
  expect(kinds).toEqual(['disbursement_hold', 'disbursement_out', 'disbursement_reversal']);
});

it('a transfer Paystack reports reversed while we still have the payout PROCESSING ends FAILED: amount and fee back, the ledger balanced, one webhook for the change', async () => {
  const before = await wallet();
  fake.holdNextTransfer = 1;
  const d = expectOk(await m.client.post('/v1/disbursements', payout(4000), secret()));
  await ended(d.gateway_reference, 'PROCESSING');
  expect(await wallet()).toMatchObject({ available_balance: before.available_balance - 4050, disbursement_held_balance: before.disbursement_held_balance + 4050 });
  const reference = await ourReference(d.id);
  // Paystack pays it, its transfer.success never reaches us, then the bank returns it: transfer.reversed
  fake.dropTransferEvents.add(reference);
  fake.finishTransfer(reference, 'success');
  fake.dropTransferEvents.delete(reference);
  fake.reverseTransfer(reference);
  const failed = await ended(d.gateway_reference, 'FAILED');
  expect(failed.failure_reason).toBe('Paystack reversed the payout: the money came back to the balance');
  // the money never left for good: the whole hold, amount and fee, is back in available; no fee taken
  expect(await wallet()).toEqual(before);
  const kinds = (await svc.services.db.any('SELECT kind FROM journals WHERE disbursement_id = $1 ORDER BY id', [d.id])).map((j: { kind: string }) => j.kind);
  expect(kinds).toEqual(['disbursement_hold', 'disbursement_return']);
  expect(await ledgerDrift(svc.services.db)).toEqual([]);
  const changes = (await svc.services.db.any('SELECT status FROM disbursement_state_changes WHERE disbursement_id = $1 ORDER BY id', [d.id])).map((c: { status: string }) => c.status);
  expect(changes.filter((s) => s !== 'PENDING' && s !== 'PROCESSING')).toEqual(['FAILED']);
  // the merchant hears of it once: PROCESSING, then FAILED, never COMPLETED or REVERSED
  await eventually(async () => (hooksFor(hooks.received, d.gateway_reference).some((h) => h.transaction_status === 'FAILED') ? true : undefined), 10_000, 'the FAILED webhook');
  await new Promise((settle) => setTimeout(settle, 1000));
  expect(hooksFor(hooks.received, d.gateway_reference).map((h) => [h.transaction_status, h.sequence])).toEqual([['PROCESSING', 1], ['FAILED', 2]]);
  // asked again later, Paystack still says reversed: nothing moves again
  expect(await svc.services.disbursements.move(BigInt(d.id), { to: 'FAILED' })).toBeNull();
  expect(await wallet()).toEqual(before);
});
