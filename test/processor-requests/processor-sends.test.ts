// Proves the send queue to a live processor, driven by hand on a controlled clock against a fake MTN over HTTP: a send is claimed only when due and never again while one is in flight, retries follow PROCESSOR_SEND_SCHEDULE, a request whose collection expired or was decided before it left is never sent, the first status query is pulled in to the collection's expiry, and a success racing another decision is held, never dropped.
import { FakeMtnMomo } from '../fakes/mtn-momo';
import { liveMerchant, requestOf } from '../helpers/live';
import type { LiveMerchant } from '../helpers/live';
import { expectOk } from '../helpers/merchants';
import { eventually } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock } from '../helpers/users';

const TTL_SECONDS = 120;
let fake: FakeMtnMomo;
let svc: TestService;
let m: LiveMerchant;
const clock = new Clock();
let seq = 0;

beforeAll(async () => {
  fake = new FakeMtnMomo({ answerAfterMs: 3_600_000 });
  await fake.start();
  svc = await startTestService({
    env: {
      APP_ENV: 'live', MTN_MOMO_BASE_URL: fake.url, PENDING_TTL_SECONDS: String(TTL_SECONDS), WEBHOOK_ALLOW_PRIVATE: 'true',
      PROCESSOR_SEND_SCHEDULE: '0s,5s,30s', PROCESSOR_CHECK_SCHEDULE: '10m', PROCESSOR_TIMEOUT_MS: '1000',
    },
    now: clock.now,
    workers: false,
  });
  m = await liveMerchant(svc, { serviceType: 'mtn_momo', currency: 'UGX', credentials: fake.credentials(), webhookUrl: 'http://127.0.0.1:9/never-called' }); // workers are off: nothing is delivered
}, 120_000);

afterAll(async () => {
  await svc?.close();
  await fake?.stop();
});

afterEach(() => {
  fake.mode = 'up';
});

async function pay(): Promise<{ ref: string; id: bigint }> {
  seq += 1;
  const c = expectOk(
    await m.client.post('/v1/collections/request-to-pay', {
      currency: 'UGX', amount: 50000, payment_method: 'MOBILE_MONEY', account_number: '256772000123',
      merchant_reference: `SENDS-${process.pid}-${seq}-${Date.now().toString(36)}`, narration: 'Order sent by hand',
    }),
  );
  const { id } = await svc.services.db.one<{ id: bigint }>('SELECT id FROM collections WHERE gateway_reference = $1', [c.gateway_reference]);
  return { ref: c.gateway_reference, id };
}

async function clockOf(ref: string) {
  return svc.services.db.one<{ state: string; send_attempts: number; next_send_at: Date | null; next_check_at: Date | null; expires_at: Date }>(
    `SELECT p.state, p.send_attempts, p.next_send_at, p.next_check_at, c.expires_at FROM processor_requests p JOIN collections c ON c.id = p.collection_id
      WHERE c.gateway_reference = $1`,
    [ref],
  );
}

/** Requests to pay the fake received for one of our references (the X-Reference-Id is our reference). */
async function sentTimes(ref: string): Promise<number> {
  const reference = (await requestOf(svc, ref))!.reference;
  return fake.requests.has(reference) ? 1 : 0;
}

const postsToPay = () => fake.calls.filter((c) => c.method === 'POST' && c.path === '/collection/v1_0/requesttopay').length;
const sends = () => svc.services.processorRequests.sendDue();

it('retries follow PROCESSOR_SEND_SCHEDULE (0s, 5s, 30s, then 30s), and a send is not claimed before it is due', async () => {
  const { ref } = await pay();
  fake.mode = 'error'; // MTN answers 503: the request surely was not taken, send again later
  expect(await sends()).toBe(1);
  let r = await clockOf(ref);
  expect(r).toMatchObject({ state: 'queued', send_attempts: 1 });
  expect(r.next_send_at!.getTime() - clock.now().getTime()).toBeGreaterThan(4_000);
  expect(r.next_send_at!.getTime() - clock.now().getTime()).toBeLessThanOrEqual(5_000);

  // not due yet: nothing is claimed, nothing is sent
  expect(await sends()).toBe(0);
  expect((await clockOf(ref)).send_attempts).toBe(1);

  clock.advance(5_000);
  expect(await sends()).toBe(1);
  r = await clockOf(ref);
  expect(r.send_attempts).toBe(2);
  expect(r.next_send_at!.getTime() - clock.now().getTime()).toBeGreaterThan(29_000);
  expect(r.next_send_at!.getTime() - clock.now().getTime()).toBeLessThanOrEqual(30_000);

  clock.advance(29_000);
  expect(await sends()).toBe(0);
  clock.advance(1_000);
  expect(await sends()).toBe(1);
  r = await clockOf(ref);
  expect(r.send_attempts).toBe(3);
  expect(r.next_send_at!.getTime() - clock.now().getTime()).toBeGreaterThan(29_000); // the last step repeats

  fake.mode = 'up';
  clock.advance(30_000);
  expect(await sends()).toBe(1);
  expect(await clockOf(ref)).toMatchObject({ state: 'sent', send_attempts: 4, next_send_at: null });
  expect(await sentTimes(ref)).toBe(1);
});

it('a send in flight is not claimed again: the customer is prompted once', async () => {
  const { ref } = await pay();
  const before = postsToPay();
  fake.mode = 'hang';
  const first = sends();
  await eventually(async () => (await clockOf(ref)).send_attempts === 1, 5000, 'the first send claimed');
  expect(await sends()).toBe(0);
  expect((await clockOf(ref)).send_attempts).toBe(1);
  await first; // the hung call times out: an unknown outcome, for a status query to settle
  expect((await clockOf(ref)).send_attempts).toBe(1);
  expect(postsToPay()).toBe(before); // nothing answered while hung
});

it('a queued request whose collection expired, or was decided, before it left is never sent', async () => {
  const decided = await pay();
  expect(await svc.services.collections.applyOutcome(decided.id, 'CANCELLED')).not.toBeNull();
  const expiring = await pay();
  clock.advance(TTL_SECONDS * 1000 + 1_000);
  expect(await svc.services.collections.expireDue()).toBeGreaterThanOrEqual(1);
  expect((await clockOf(expiring.ref)).state).toBe('queued');
  const before = postsToPay();
  expect(await sends()).toBeGreaterThanOrEqual(2);
  expect(postsToPay()).toBe(before);
  for (const c of [expiring, decided]) {
    expect(await clockOf(c.ref)).toMatchObject({ state: 'settled', next_send_at: null, send_attempts: 1 });
    expect(await sentTimes(c.ref)).toBe(0);
  }
});

it('the first status query is pulled in to the expiry when the first check step (10 minutes) is longer than the time left', async () => {
  const { ref } = await pay();
  clock.advance(60_000); // a ten-minute first step against the one minute left
  expect(await sends()).toBeGreaterThanOrEqual(1);
  const r = await clockOf(ref);
  expect(r.state).toBe('sent');
  expect(r.next_check_at!.getTime()).toBe(r.expires_at.getTime());
});

it('a success confirmed while another path failed the collection (between our read and our write) is held for the operator, never dropped', async () => {
  const { ref, id } = await pay();
  expect(await sends()).toBeGreaterThanOrEqual(1);
  expect((await clockOf(ref)).state).toBe('sent');
  fake.settle((await requestOf(svc, ref))!.reference, 'SUCCESSFUL');
  const collections = svc.services.collections;
  const original = collections.applyOutcome.bind(collections);
  const race = jest.spyOn(collections, 'applyOutcome').mockImplementation(async (...args) => {
    if (args[0] === id && args[1] === 'COMPLETED') await original(id, 'FAILED', 'Failed by another path meanwhile');
    return original(...args);
  });
  try {
    await svc.services.processorRequests.checkNow(id);
  } finally {
    race.mockRestore();
  }
  expect(await requestOf(svc, ref)).toMatchObject({ state: 'held', held_reason: 'the processor confirmed payment of a collection already FAILED' });
  expect(await svc.services.db.one('SELECT status, (SELECT count(*)::int FROM journals WHERE collection_id = $1) AS journals FROM collections WHERE id = $1', [id])).toEqual({
    status: 'FAILED', journals: 0,
  });
  expect(svc.logs.some((l) => l.includes('payment held for the operator') && l.includes(ref))).toBe(true);
});
