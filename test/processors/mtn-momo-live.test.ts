// A live deployment collects through MTN MoMo (a fake MTN over real HTTP): success, every failure reason, lost, duplicate and forged callbacks, outages, token expiry, amount mismatch, late success after expiry and a restart with requests in flight.
import { FakeMtnMomo } from '../fakes/mtn-momo';
import { freshDatabase } from '../helpers/db';
import { FAST_PROCESSORS, hooksFor, journalsOf, liveMerchant, requestOf } from '../helpers/live';
import type { LiveMerchant } from '../helpers/live';
import { errorFields, expectOk } from '../helpers/merchants';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import type { Database } from '../../src/db';

const TTL_SECONDS = 6;
/** the same secrets across the restart, as a real deployment keeps them */
const SECRETS = { JWT_SECRET: 'live-test-jwt-secret-0123456789abcdef', MASTER_KEY: Buffer.alloc(32, 7).toString('base64') };
let fake: FakeMtnMomo;
let hooks: Receiver;
let database: Database;
let svc: TestService;
let m: LiveMerchant;
let seq = 0;

function env(): Record<string, string> {
  return { APP_ENV: 'live', MTN_MOMO_BASE_URL: fake.url, PENDING_TTL_SECONDS: String(TTL_SECONDS), ...SECRETS, ...FAST_PROCESSORS };
}

beforeAll(async () => {
  fake = new FakeMtnMomo();
  await fake.start();
  hooks = await startReceiver();
  database = await freshDatabase();
  svc = await startTestService({ env: env(), database });
  m = await liveMerchant(svc, { serviceType: 'mtn_momo', currency: 'UGX', credentials: fake.credentials(), webhookUrl: hooks.url });
}, 120_000);

afterAll(async () => {
  await svc?.close();
  await database?.close();
  await hooks?.close();
  await fake?.stop();
});

function pay(phone: string, overrides: Record<string, unknown> = {}) {
  seq += 1;
  return m.client.post('/v1/collections/request-to-pay', {
    currency: 'UGX',
    amount: 50000,
    payment_method: 'MOBILE_MONEY',
    account_number: phone,
    merchant_reference: `MTN-${process.pid}-${seq}-${Date.now().toString(36)}`,
    narration: 'Order for live goods',
    ...overrides,
  });
}

async function statusOf(ref: string): Promise<string> {
  return expectOk(await m.client.get(`/v1/collections/${ref}`)).transaction_status;
}

function settledAs(ref: string, status: string, timeoutMs = 15_000) {
  return eventually(async () => (await statusOf(ref)) === status, timeoutMs, `${ref} ${status}`);
}

async function balance(): Promise<number> {
  return expectOk(await m.client.get('/v1/data/wallets/UGX/balance')).balance;
}

describe('MTN MoMo in live', () => {
  it('answers PENDING at once, sends one request to pay, and completes, credits and notifies on the callback', async () => {
    const before = await balance();
    const res = await pay('256772123456');
    expect(res.status).toBe(200);
    const c = res.body.data;
    expect(c).toMatchObject({ transaction_status: 'PENDING', institution_name: 'MTN Mobile Money', payment_url: null });
    expect(c.instructions[0].description).toContain('50000 UGX');
    await settledAs(c.gateway_reference, 'COMPLETED');
    const sent = fake.byExternalId(c.gateway_reference)!;
    expect(sent).toMatchObject({ amount: '50000', currency: 'UGX', partyId: '256772123456' });
    expect(sent.callbackUrl).toMatch(new RegExp(`^${svc.url}/callbacks/mtn_momo/[A-Za-z0-9_-]{32}$`));
    expect(await balance()).toBe(before + 50000);
    expect(await journalsOf(svc, c.gateway_reference)).toBe(1);
    const hook = await eventually(() => hooksFor(hooks.received, c.gateway_reference)[0], 10_000, 'webhook');
    expect(hook).toMatchObject({ transaction_status: 'COMPLETED', sequence: 1 });
    expect(await requestOf(svc, c.gateway_reference)).toMatchObject({ state: 'settled', send_attempts: 1, reference: sent.reference });
  });

  it.each([
    ['46733123450', 'FAILED', 'The processor could not complete the payment'],
    ['46733123451', 'CANCELLED', 'The customer declined the payment'],
    ['46733123452', 'FAILED', 'The customer did not approve the payment in time'],
    ['46733123455', 'FAILED', "The customer's mobile money balance is too low"],
    ['46733123456', 'FAILED', 'The phone number has no mobile money account'],
    ['46733123457', 'CANCELLED', 'The payment was cancelled'],
    ['46733123458', 'FAILED', 'The customer did not approve the payment in time'],
  ])('test number %s ends %s: "%s", with no credit', async (phone, status, message) => {
    const c = expectOk(await pay(phone));
    await settledAs(c.gateway_reference, status);
    expect(expectOk(await m.client.get(`/v1/collections/${c.gateway_reference}`)).message).toBe(message);
    expect(await journalsOf(svc, c.gateway_reference)).toBe(0);
  });

  it('refuses at request time an amount MTN cannot take in a zero-decimal currency, writing nothing', async () => {
    const { n: before } = await svc.services.db.one('SELECT count(*)::int AS n FROM collections');
    const res = await pay('256772123456', { amount: 500.5 });
    expect(errorFields(res)).toEqual(['amount']);
    expect(res.body.data[0].message).toContain('whole units');
    const { n: after } = await svc.services.db.one('SELECT count(*)::int AS n FROM collections');
    expect(after).toBe(before);
  });
});

describe('callbacks are prompts, not proof', () => {
  it('completes through reconciliation when the callback is lost', async () => {
    fake.o.callbacks = 'drop';
    try {
      const c = expectOk(await pay('256772000111'));
      await settledAs(c.gateway_reference, 'COMPLETED');
      expect(fake.callbacksSent.filter((s) => s.reference === fake.byExternalId(c.gateway_reference)!.reference)).toEqual([]);
      expect((await requestOf(svc, c.gateway_reference))!.checks).toBeGreaterThanOrEqual(1);
    } finally {
      fake.o.callbacks = 'once';
    }
  });

  it('credits once and notifies once for duplicated callbacks (PUT and POST)', async () => {
    fake.o.callbacks = 'duplicate';
    fake.o.callbackMethod = 'POST';
    try {
      const c = expectOk(await pay('256772000222'));
      await settledAs(c.gateway_reference, 'COMPLETED');
      const reference = fake.byExternalId(c.gateway_reference)!.reference;
      await eventually(() => fake.callbacksSent.filter((s) => s.reference === reference).length === 2, 10_000, 'two callbacks');
      expect(fake.callbacksSent.filter((s) => s.reference === reference).map((s) => s.status)).toEqual([200, 200]);
      await eventually(() => hooksFor(hooks.received, c.gateway_reference).length > 0, 10_000, 'webhook');
      expect(await journalsOf(svc, c.gateway_reference)).toBe(1);
      expect(hooksFor(hooks.received, c.gateway_reference).map((h) => h.transaction_status)).toEqual(['COMPLETED']);
    } finally {
      fake.o.callbacks = 'once';
      fake.o.callbackMethod = 'PUT';
    }
  });

  it('answers 404 and changes nothing for an unknown token or service type; a forged success with the right token credits nothing', async () => {
    const c = expectOk(await pay('46733123454'));
    const row = await eventually(async () => {
      const r = await requestOf(svc, c.gateway_reference);
      return r?.state === 'sent' ? r : undefined;
    }, 10_000, 'request sent');
    const forged = { externalId: c.gateway_reference, amount: '50000', currency: 'UGX', status: 'SUCCESSFUL', financialTransactionId: '1' };
    for (const path of [`/callbacks/mtn_momo/${'x'.repeat(32)}`, `/callbacks/mpesa_nope/${row.callback_token}`, `/callbacks/sandbox/${row.callback_token}`]) {
      const res = await svc.anon.put(path, forged);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
    const checksBefore = (await requestOf(svc, c.gateway_reference))!.checks;
    const res = await svc.anon.put(`/callbacks/mtn_momo/${row.callback_token}`, forged);
    expect(res.status).toBe(200);
    // the prompt makes the service ask MTN, which still says PENDING
    await eventually(async () => (await requestOf(svc, c.gateway_reference))!.checks > checksBefore, 10_000, 'a status query');
    expect(await statusOf(c.gateway_reference)).toBe('PENDING');
    expect(await journalsOf(svc, c.gateway_reference)).toBe(0);
  });
});

describe('processor faults', () => {
  it('retries while MTN is down (503) and sends one prompt once it is up', async () => {
    fake.mode = 'error';
    const c = expectOk(await pay('256772000333'));
    // between its sends the request is queued again (while a send is in flight it is 'sending')
    const queued = await eventually(async () => {
      const r = await requestOf(svc, c.gateway_reference);
      return r && r.send_attempts >= 2 && r.state === 'queued' ? r : undefined;
    }, 10_000, 'two attempts');
    expect(queued).toMatchObject({ state: 'queued', last_error: expect.stringContaining('503') });
    fake.mode = 'up';
    await settledAs(c.gateway_reference, 'COMPLETED');
    expect([...fake.requests.values()].filter((r) => r.externalId === c.gateway_reference)).toHaveLength(1);
  });

  it('asks MTN with a status query after a lost answer, never sends again: one prompt', async () => {
    fake.swallow = 1;
    const c = expectOk(await pay('256772000444'));
    await settledAs(c.gateway_reference, 'COMPLETED');
    const sent = fake.byExternalId(c.gateway_reference)!;
    const posts = fake.calls.filter((x) => x.method === 'POST' && x.path === '/collection/v1_0/requesttopay' && x.reference === sent.reference);
    expect(posts.map((x) => x.status)).toEqual([0]);
    expect(fake.calls.some((x) => x.method === 'GET' && x.path === `/collection/v1_0/requesttopay/${sent.reference}`)).toBe(true);
    expect([...fake.requests.values()].filter((r) => r.externalId === c.gateway_reference)).toHaveLength(1);
    expect((await requestOf(svc, c.gateway_reference))!.reference).toBe(sent.reference);
  });

  it('gets a new token when MTN refuses an expired one, and the payment goes through', async () => {
    const tokensBefore = fake.calls.filter((x) => x.path === '/collection/token/').length;
    fake.expireTokens();
    const c = expectOk(await pay('256772000555'));
    await settledAs(c.gateway_reference, 'COMPLETED');
    const after = fake.calls.filter((x) => x.path === '/collection/token/').length;
    expect(after).toBe(tokensBefore + 1);
    expect(fake.calls.some((x) => x.status === 401)).toBe(true);
  });

  it('holds a success for another amount for the operator, without credit', async () => {
    const c = expectOk(await pay('46733123459'));
    const row = await eventually(async () => {
      const r = await requestOf(svc, c.gateway_reference);
      return r?.state === 'held' ? r : undefined;
    }, 15_000, 'held');
    expect(row.held_reason).toContain('4999900');
    expect(await statusOf(c.gateway_reference)).toBe('PENDING');
    expect(await journalsOf(svc, c.gateway_reference)).toBe(0);
    expect(svc.logs.some((l) => l.includes('held for the operator'))).toBe(true);
    const admin = expectOk(await svc.admin.get(`/v1/admin/collections/${c.gateway_reference}`));
    expect(admin.processor_request).toMatchObject({ service_type: 'mtn_momo', state: 'held', held_reason: row.held_reason });
  });
});

describe('expiry and late success', () => {
  it('asks MTN once more at the deadline, expires, then completes late once MTN confirms payment', async () => {
    const before = await balance();
    const c = expectOk(await pay('46733123454'));
    await settledAs(c.gateway_reference, 'EXPIRED', (TTL_SECONDS + 10) * 1000);
    const sent = fake.byExternalId(c.gateway_reference)!;
    const asked = fake.calls.filter((x) => x.method === 'GET' && x.path.endsWith(sent.reference)).length;
    expect(asked).toBeGreaterThanOrEqual(1);
    fake.settle(sent.reference, 'SUCCESSFUL');
    await settledAs(c.gateway_reference, 'COMPLETED');
    expect(await balance()).toBe(before + 50000);
    const admin = expectOk(await svc.admin.get(`/v1/admin/collections/${c.gateway_reference}`));
    expect(admin.late_completed_at).toEqual(expect.any(String));
    await eventually(() => hooksFor(hooks.received, c.gateway_reference).length === 2, 10_000, 'two webhooks');
    expect(hooksFor(hooks.received, c.gateway_reference).map((h) => [h.transaction_status, h.sequence])).toEqual([
      ['EXPIRED', 1],
      ['COMPLETED', 2],
    ]);
    expect(await journalsOf(svc, c.gateway_reference)).toBe(1);
  });
});

describe('restart', () => {
  it('loses nothing and sends nothing twice when the service stops with requests in flight', async () => {
    fake.mode = 'error';
    const refs: string[] = [];
    for (const phone of ['256772000601', '256772000602', '256772000603']) refs.push(expectOk(await pay(phone)).gateway_reference);
    await eventually(async () => {
      for (const r of refs) if (((await requestOf(svc, r))?.send_attempts ?? 0) < 1) return undefined;
      return true;
    }, 10_000, 'first attempts');
    await svc.close();
    fake.mode = 'up';
    svc = await startTestService({ env: env(), database });
    m.client = svc.merchant(m.client.auth() as string);
    for (const r of refs) await settledAs(r, 'COMPLETED');
    for (const r of refs) expect([...fake.requests.values()].filter((x) => x.externalId === r)).toHaveLength(1);
  });
});
