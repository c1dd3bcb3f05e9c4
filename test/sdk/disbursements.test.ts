// Proves the SDK's disbursement calls against the real service on the sandbox simulator: the client sends the
// API secret in Secret-Key on every disbursement call (not on others), createDisbursement is answered PENDING, a replay of the same merchant_reference answers
// the same disbursement, getDisbursement reads it to COMPLETED (or FAILED for the designated number),
// listDisbursements and iterate list it, the webhook verifies as a disbursement notification, and
// INSUFFICIENT_FUNDS or a call without the secret is refused and changes nothing.
import { createPayCollect, iterate, PayCollectError, unwrap, verifyWebhook } from '../../sdk/src';
import type { components, PayCollect } from '../../sdk/src';
import { eventually, mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { defaultAjvProblems } from '../helpers/default-ajv';
import type { Answer } from '../helpers/default-ajv';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

type Disbursement = components['schemas']['DisbursementRecord'];

let svc: TestService;
let receiver: Receiver;
let m: MerchantSetup;
let pay: PayCollect;
/** Method, path and Secret-Key of every request the SDK sent. */
const sent: { method: string; path: string; secret: string | null; status: number; replayed: string | null }[] = [];
/** Every answer the SDK got, for the default-Ajv check at the end. */
const answers: Answer[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '3600000', PROCESSOR_CHECK_SCHEDULE: '100ms,200ms', WEBHOOK_RETRY_SCHEDULE: '0s,100ms' } });
  m = await setupMerchant(svc, { webhookUrl: receiver.url });
  await db().none("UPDATE mids SET disburses = true WHERE business_id = $1 AND payment_method = 'MOBILE_MONEY'", [m.businessId]);
  await db().none('UPDATE businesses SET disbursement_fee_percent = 1.5, disbursement_fee_fixed_minor = 5000 WHERE id = $1', [m.businessId]);
  const funds = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ amount: 100000, account_number: '256700000009' }));
  expect((await m.client.post(`/v1/sandbox/collections/${funds.body.data.gateway_reference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
  pay = createPayCollect({
    baseUrl: svc.url, apiKey: m.apiKey, apiSecret: m.apiSecret,
    fetch: async (request) => {
      const secret = request.headers.get('secret-key');
      const response = await fetch(request);
      sent.push({ method: request.method, path: new URL(request.url).pathname, secret, status: response.status, replayed: response.headers.get('idempotent-replayed') });
      answers.push({ method: request.method, url: request.url, status: response.status, contentType: response.headers.get('content-type') ?? '', text: await response.clone().text() });
      return response;
    },
  });
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(async () => {
  await svc?.close();
  await receiver?.close();
});

const db = () => svc.database.db;
const payout = (over: Partial<components['schemas']['DisbursementCreate']> = {}): components['schemas']['DisbursementCreate'] => ({
  amount: 20000, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123456', account_name: 'Okello Transport Ltd',
  merchant_reference: ref('SDKPAY'), narration: 'Driver payout week 47', ...over,
});
const final = (reference: string) =>
  eventually(async () => {
    const { data } = await unwrap(pay.getDisbursement(reference));
    return ['PENDING', 'PROCESSING'].includes(data.transaction_status) ? undefined : data;
  }, 15_000, `disbursement ${reference} final`);
const available = async () => (await unwrap(pay.api.GET('/v1/data/wallets/{currency}/balance', { params: { path: { currency: 'UGX' } } }))).data;
const counts = async () => ({
  disbursements: (await db().one('SELECT count(*)::int AS n FROM disbursements WHERE business_id = $1', [m.businessId])).n as number,
  journals: (await db().one('SELECT count(*)::int AS n FROM journals j JOIN disbursements d ON d.id = j.disbursement_id WHERE d.business_id = $1', [m.businessId])).n as number,
});

describe('disbursements through the SDK', () => {
  let completed: Disbursement;

  it('pays out with Secret-Key sent, answers a replay with the same disbursement, and reads it to COMPLETED', async () => {
    const body = payout();
    const accepted = await unwrap(pay.createDisbursement(body));
    expect(accepted.status).toBe('accepted');
    expect(accepted.data).toMatchObject({ amount: 20000, fee: 350, currency: 'UGX', merchant_reference: body.merchant_reference, transaction_type: 'disbursement' });
    const again = await unwrap(pay.createDisbursement(body));
    expect(again.data.gateway_reference).toBe(accepted.data.gateway_reference);
    expect(sent.filter((s) => s.path === '/v1/disbursements' && s.method === 'POST').map((s) => s.replayed === 'true')).toEqual([false, true]);

    completed = await final(accepted.data.gateway_reference);
    expect(completed).toMatchObject({ gateway_reference: accepted.data.gateway_reference, transaction_status: 'COMPLETED', failure_reason: null });
    expect(await db().one('SELECT status FROM disbursements WHERE gateway_reference = $1', [completed.gateway_reference])).toEqual({ status: 'COMPLETED' });
    expect(await available()).toMatchObject({ available_balance: 100000 - 20350, disbursement_held_balance: 0 });
    // every disbursement call carried the token's secret; the other calls did not
    const calls = sent.filter((s) => s.path.startsWith('/v1/disbursements'));
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expect(calls.every((s) => s.secret === m.apiSecret && s.status === 200)).toBe(true);
    expect(sent.filter((s) => s.path === '/v1/data/wallets/UGX/balance').map((s) => s.secret)).toEqual([null]);
  });

  it('lists it by its merchant_reference and page by page', async () => {
    const filtered = await unwrap(pay.listDisbursements({ merchant_reference: completed.merchant_reference }));
    expect(filtered.data.map((d) => d.gateway_reference)).toEqual([completed.gateway_reference]);
    const failed = await unwrap(pay.createDisbursement(payout({ amount: 1000, account_number: '256772123502' })));
    expect(await final(failed.data.gateway_reference)).toMatchObject({ transaction_status: 'FAILED' });
    expect((await final(failed.data.gateway_reference)).failure_reason).toBeTruthy();
    const all: string[] = [];
    for await (const d of iterate((cursor) => unwrap(pay.listDisbursements({ per_page: 1, cursor })))) all.push(d.gateway_reference);
    expect(all).toEqual([failed.data.gateway_reference, completed.gateway_reference]);
    // the failure returned amount and fee
    expect(await available()).toMatchObject({ available_balance: 100000 - 20350, disbursement_held_balance: 0 });
  });

  it('verifies the webhook of the completion as a disbursement notification', async () => {
    const delivery = await eventually(async () => receiver.received.find((r) => r.body.includes(completed.gateway_reference) && r.body.includes('"COMPLETED"')), 15_000, 'the webhook');
    const n = verifyWebhook(m.webhookHash, delivery.body, delivery.headers);
    if (n.transaction_type !== 'disbursement') throw new Error(`expected a disbursement notification, got ${n.transaction_type}`);
    expect(n).toMatchObject({ gateway_reference: completed.gateway_reference, transaction_status: 'COMPLETED', amount: 20000, fee: 350 });
    expect(n.sequence).toBeGreaterThanOrEqual(1);
  });
});

describe('refusals through the SDK change nothing', () => {
  it('throws INSUFFICIENT_FUNDS when available cannot cover amount and fee', async () => {
    const before = { ...(await counts()), wallet: await available() };
    const e = await unwrap(pay.createDisbursement(payout({ amount: 80000 }))).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PayCollectError);
    expect(e).toMatchObject({ status: 400, code: 'INSUFFICIENT_FUNDS' });
    expect({ ...(await counts()), wallet: await available() }).toEqual(before);
  });

  it('is refused 401 when a disbursement call goes without the secret (or with another), with the access token of the SDK', async () => {
    const before = await counts();
    const authorization = (await pay.accessToken()).token;
    const call = (secret?: string) => fetch(`${svc.url}/v1/disbursements`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json', accept: 'application/json', ...(secret === undefined ? {} : { 'secret-key': secret }) },
      body: JSON.stringify(payout()),
    });
    for (const secret of [undefined, m.apiSecret + 'x']) {
      const res = await call(secret);
      expect({ status: res.status, code: ((await res.json()) as { code: string }).code }).toEqual({ status: 401, code: 'UNAUTHORIZED' });
    }
    expect(await counts()).toEqual(before);
    // a client that sends the wrong secret cannot even get an access token
    const wrong = createPayCollect({ baseUrl: svc.url, apiKey: m.apiKey, apiSecret: m.apiSecret + 'x' });
    await expect(unwrap(wrong.createDisbursement(payout()))).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(await counts()).toEqual(before);
  });
});

describe('every disbursement answer the SDK got, under a default Ajv', () => {
  it('validates each against its schema in the contract (accepted, replayed, read, listed, refused)', async () => {
    const disbursementAnswers = answers.filter((a) => new URL(a.url).pathname.startsWith('/v1/disbursements'));
    expect(new Set(disbursementAnswers.map((a) => a.status))).toEqual(new Set([200, 400]));
    expect(await defaultAjvProblems(answers)).toEqual([]);
  });
});
