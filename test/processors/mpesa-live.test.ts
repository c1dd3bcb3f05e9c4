// A live deployment collects through M-Pesa Express (a fake Daraja over real HTTP): success, every result code, whole shillings, lost and duplicate callbacks, a lost answer settled by the callback, token expiry, a short payment held, late success after expiry.
import { FakeMpesa, MPESA_SHORT_PAYMENT } from '../fakes/mpesa';
import { FAST_PROCESSORS, hooksFor, journalsOf, liveMerchant, requestOf } from '../helpers/live';
import type { LiveMerchant } from '../helpers/live';
import { errorFields, expectOk } from '../helpers/merchants';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

const TTL_SECONDS = 6;
let fake: FakeMpesa;
let hooks: Receiver;
let svc: TestService;
let m: LiveMerchant;
let seq = 0;

beforeAll(async () => {
  fake = new FakeMpesa();
  await fake.start();
  hooks = await startReceiver();
  svc = await startTestService({ env: { APP_ENV: 'live', MPESA_BASE_URL: fake.url, PENDING_TTL_SECONDS: String(TTL_SECONDS), ...FAST_PROCESSORS } });
  m = await liveMerchant(svc, { serviceType: 'mpesa', currency: 'KES', credentials: fake.credentials(), webhookUrl: hooks.url });
}, 120_000);

afterAll(async () => {
  await svc?.close();
  await hooks?.close();
  await fake?.stop();
});

function pay(phone: string, overrides: Record<string, unknown> = {}) {
  seq += 1;
  return m.client.post('/v1/collections/request-to-pay', {
    currency: 'KES',
    amount: 100,
    payment_method: 'MOBILE_MONEY',
    account_number: phone,
    merchant_reference: `MPESA-${process.pid}-${seq}-${Date.now().toString(36)}`,
    narration: 'Order for live goods',
    ...overrides,
  });
}

async function record(ref: string) {
  return expectOk(await m.client.get(`/v1/collections/${ref}`));
}

function settledAs(ref: string, status: string, timeoutMs = 15_000) {
  return eventually(async () => (await record(ref)).transaction_status === status, timeoutMs, `${ref} ${status}`);
}

async function balance(): Promise<number> {
  return expectOk(await m.client.get('/v1/data/wallets/KES/balance')).balance;
}

describe('M-Pesa Express in live', () => {
  it('pushes a prompt for whole shillings, completes on the callback, credits once and notifies', async () => {
    const before = await balance();
    const c = expectOk(await pay('254708374149'));
    expect(c).toMatchObject({ transaction_status: 'PENDING', institution_name: 'M-Pesa' });
    expect(c.instructions[0].description).toContain('KES 100 ');
    await settledAs(c.gateway_reference, 'COMPLETED');
    const push = fake.byAccountReference(c.gateway_reference)!;
    expect(push).toMatchObject({ amount: 100, phone: '254708374149', accountReference: c.gateway_reference.slice(0, 12) });
    expect(await requestOf(svc, c.gateway_reference)).toMatchObject({ state: 'settled', vendor_reference: push.checkoutRequestId });
    expect(await balance()).toBe(before + 100);
    const hook = await eventually(() => hooksFor(hooks.received, c.gateway_reference)[0], 10_000, 'webhook');
    expect(hook).toMatchObject({ transaction_status: 'COMPLETED', sequence: 1 });
  });

  it.each([
    ['254711000001', 'FAILED', "The customer's M-Pesa balance is too low"],
    ['254711001032', 'CANCELLED', 'The customer cancelled the payment'],
    ['254711001037', 'FAILED', "The customer's phone could not be reached"],
    ['254711001019', 'FAILED', 'The payment prompt expired before the customer answered'],
    ['254711002001', 'FAILED', 'The customer entered a wrong M-Pesa PIN'],
    ['254711001001', 'FAILED', "Another M-Pesa payment was in progress on the customer's phone"],
  ])('%s ends %s: "%s", with no credit', async (phone, status, message) => {
    const c = expectOk(await pay(phone));
    await settledAs(c.gateway_reference, status);
    expect((await record(c.gateway_reference)).message).toBe(message);
    expect(await journalsOf(svc, c.gateway_reference)).toBe(0);
  });

  it('refuses cents at request time (M-Pesa takes whole shillings), writing nothing', async () => {
    const count = () => svc.services.db.one<{ n: number }>('SELECT count(*)::int AS n FROM collections');
    const before = await count();
    const res = await pay('254708374149', { amount: 100.5 });
    expect(errorFields(res)).toEqual(['amount']);
    expect(res.body.data[0].message).toContain('whole units');
    expect(await count()).toEqual(before);
  });
});

describe('M-Pesa callbacks and faults', () => {
  it('completes through the status query when the callback is lost ("being processed" meanwhile)', async () => {
    fake.o.callbacks = 'drop';
    try {
      const c = expectOk(await pay('254711000003'));
      const queried = () => fake.calls.some((x) => x.path === '/mpesa/stkpushquery/v1/query' && x.status === 500);
      await eventually(queried, 10_000, 'a query answered "being processed"');
      expect((await record(c.gateway_reference)).transaction_status).toBe('PENDING');
      const push = fake.byAccountReference(c.gateway_reference)!;
      fake.settle(push.checkoutRequestId, 0);
      await settledAs(c.gateway_reference, 'COMPLETED');
      expect(fake.callbacksSent.filter((s) => s.checkoutRequestId === push.checkoutRequestId)).toEqual([]);
    } finally {
      fake.o.callbacks = 'once';
    }
  });

  it('credits once for a duplicated callback', async () => {
    fake.o.callbacks = 'duplicate';
    try {
      const c = expectOk(await pay('254722000102'));
      await settledAs(c.gateway_reference, 'COMPLETED');
      const id = fake.byAccountReference(c.gateway_reference)!.checkoutRequestId;
      await eventually(() => fake.callbacksSent.filter((s) => s.checkoutRequestId === id).length === 2, 10_000, 'two callbacks');
      await eventually(() => hooksFor(hooks.received, c.gateway_reference).length > 0, 10_000, 'webhook');
      expect(await journalsOf(svc, c.gateway_reference)).toBe(1);
      expect(hooksFor(hooks.received, c.gateway_reference)).toHaveLength(1);
    } finally {
      fake.o.callbacks = 'once';
    }
  });

  it('settles a push whose answer was lost from its callback, without a second prompt', async () => {
    fake.swallow = 1;
    const c = expectOk(await pay('254722000103'));
    await eventually(async () => (await requestOf(svc, c.gateway_reference))?.state === 'unknown' || undefined, 10_000, 'unknown outcome');
    await settledAs(c.gateway_reference, 'COMPLETED');
    expect([...fake.pushes.values()].filter((p) => p.phone === '254722000103')).toHaveLength(1);
  });

  it('gets a new token when Daraja answers 404.001.03 Invalid Access Token', async () => {
    fake.expireTokens();
    const c = expectOk(await pay('254722000104'));
    await settledAs(c.gateway_reference, 'COMPLETED');
    expect(fake.calls.some((x) => x.status === 404 && x.path === '/mpesa/stkpush/v1/processrequest')).toBe(true);
  });

  it('holds a payment whose callback reports a different amount, without credit', async () => {
    const c = expectOk(await pay(MPESA_SHORT_PAYMENT));
    const row = await eventually(async () => {
      const r = await requestOf(svc, c.gateway_reference);
      return r?.state === 'held' ? r : undefined;
    }, 15_000, 'held');
    expect(row.held_reason).toContain('9900');
    expect((await record(c.gateway_reference)).transaction_status).toBe('PENDING');
    expect(await journalsOf(svc, c.gateway_reference)).toBe(0);
  });

  it('expires an unanswered prompt after asking once more, then completes late when the customer pays', async () => {
    const c = expectOk(await pay('254711000000'));
    await settledAs(c.gateway_reference, 'EXPIRED', (TTL_SECONDS + 10) * 1000);
    const push = fake.byAccountReference(c.gateway_reference)!;
    fake.settle(push.checkoutRequestId, 0);
    await settledAs(c.gateway_reference, 'COMPLETED');
    expect(expectOk(await svc.admin.get(`/v1/admin/collections/${c.gateway_reference}`)).late_completed_at).toEqual(expect.any(String));
    await eventually(() => hooksFor(hooks.received, c.gateway_reference).length === 2, 10_000, 'two webhooks');
    expect(hooksFor(hooks.received, c.gateway_reference).map((h) => h.transaction_status)).toEqual(['EXPIRED', 'COMPLETED']);
    expect(await journalsOf(svc, c.gateway_reference)).toBe(1);
  });
});
