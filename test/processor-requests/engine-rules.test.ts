// Proves the one processor-request engine's rules for every kind it carries (a collection's charge, a refund, a payout), against MTN MoMo (the project's fake MTN over real HTTP, which records every call): a lost answer is followed by a status query, never a resend; a resend, under the same reference, only after MTN's clear "not found"; a callback for a request in a final state makes no call (a completed payout, watched for a reversal, at most while the check schedule lasts); a claim whose process stopped beating is taken over at once, while a live process's claim is left to it; and every kind's calls are traced and counted per MID.
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { FakeMtnMomo } from '../fakes/mtn-momo';
import { FAST_PROCESSORS, liveMerchant, secretOf } from '../helpers/live';
import type { LiveMerchant } from '../helpers/live';
import { expectOk } from '../helpers/merchants';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

type Kind = 'collection' | 'refund' | 'payout';

let fake: FakeMtnMomo;
let hooks: Receiver;
let svc: TestService;
let m: LiveMerchant;
let seq = 0;
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);
const spans = new InMemorySpanExporter();

beforeAll(async () => {
  fake = new FakeMtnMomo({ answerAfterMs: 10, callbacks: 'drop' });
  await fake.start();
  hooks = await startReceiver();
  // the workers are driven by hand on a clock the test moves
  svc = await startTestService({ workers: false, now, spanExporter: spans, env: { APP_ENV: 'live', MTN_MOMO_BASE_URL: fake.url, METRICS_PORT: '0', ...FAST_PROCESSORS } });
  m = await liveMerchant(svc, { serviceType: 'mtn_momo', currency: 'UGX', credentials: fake.refundCredentials(), webhookUrl: hooks.url });
  await svc.services.db.none('UPDATE mids SET disburses = true WHERE id = $1', [m.midId]);
  await svc.services.db.none("UPDATE api_tokens SET ip_allowlist = '{127.0.0.1/32, ::1/128}' WHERE id = $1", [m.apiTokenId]);
  await collected(); // the wallet's funds for the payouts
}, 180_000); // a service start is over a minute on a loaded machine

afterAll(async () => {
  await svc?.close();
  await hooks?.close();
  await fake?.stop();
});

const engine = () => svc.services.processorRequests;

/** Runs the workers of one kind until `done` holds, moving the clock past each schedule step. */
async function driven<T>(kind: Kind, done: () => Promise<T | undefined>, what: string): Promise<T> {
  return eventually(async () => {
    offsetMs += 400;
    await engine().sendDue(kind);
    await engine().checkDue(kind);
    return done();
  }, 20_000, what);
}

async function collected(): Promise<string> {
  seq += 1;
  const c = expectOk(await m.client.post('/v1/collections/request-to-pay', {
    currency: 'UGX', amount: 100000, payment_method: 'MOBILE_MONEY', account_number: '256772123456',
    merchant_reference: `ENG-${process.pid}-${seq}`, narration: 'Order for live goods',
  }));
  await driven('collection', async () => (expectOk(await m.client.get(`/v1/collections/${c.gateway_reference}`)).transaction_status === 'COMPLETED' ? true : undefined), 'collected');
  return c.gateway_reference;
}

/** Where a kind's requests live, how one is asked for, and what it is at MTN. */
const KINDS: Record<Kind, {
  table: string; key: string; state: string; post: string; get: string;
  swallow: (n: number) => void;
  start: () => Promise<string>;
  status: (gatewayReference: string) => Promise<string>;
  atMtn: (reference: string) => unknown;
}> = {
  collection: {
    table: 'processor_requests p JOIN collections c ON c.id = p.collection_id', key: 'p.collection_id', state: 'state',
    post: '/collection/v1_0/requesttopay', get: '/collection/v1_0/requesttopay/',
    swallow: (n) => { fake.swallow = n; },
    start: async () => {
      seq += 1;
      return expectOk(await m.client.post('/v1/collections/request-to-pay', {
        currency: 'UGX', amount: 30000, payment_method: 'MOBILE_MONEY', account_number: '256772123456', merchant_reference: `ENG-C-${process.pid}-${seq}`, narration: 'Order for live goods',
      })).gateway_reference;
    },
    status: async (ref) => expectOk(await m.client.get(`/v1/collections/${ref}`)).transaction_status,
    atMtn: (reference) => fake.requests.get(reference),
  },
  refund: {
    table: 'refunds', key: 'id', state: 'send_state', post: '/disbursement/v1_0/refund', get: '/disbursement/v1_0/refund/',
    swallow: (n) => { fake.swallowRefund = n; },
    start: async () => {
      const collection = await collected();
      seq += 1;
      return expectOk(await m.client.post(`/v1/collections/${collection}/refunds`, { amount: 10000, merchant_reference: `ENG-R-${process.pid}-${seq}` })).gateway_reference;
    },
    status: async (ref) => expectOk(await m.client.get(`/v1/refunds/${ref}`)).transaction_status,
    atMtn: (reference) => fake.refunds.get(reference),
  },
  payout: {
    table: 'disbursements', key: 'id', state: 'send_state', post: '/disbursement/v1_0/transfer', get: '/disbursement/v1_0/transfer/',
    swallow: (n) => { fake.swallowTransfer = n; },
    start: async () => {
      seq += 1;
      return expectOk(await m.client.post('/v1/disbursements', {
        amount: 5000, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123456', account_name: 'Jane Driver', merchant_reference: `ENG-P-${process.pid}-${seq}`, narration: 'Weekly earnings',
      }, secretOf(m))).gateway_reference;
    },
    status: async (ref) => expectOk(await m.client.get(`/v1/disbursements/${ref}`, secretOf(m))).transaction_status,
    atMtn: (reference) => fake.transfers.get(reference),
  },
};

/** The request of a kind's record, as the engine keeps it. */
async function requestOf(kind: Kind, gatewayReference: string): Promise<{ id: string; reference: string; callback_token: string; state: string; send_attempts: number }> {
  const k = KINDS[kind];
  const table = kind === 'collection' ? k.table : `${k.table} x`;
  const owner = kind === 'collection' ? 'c' : 'x';
  const q = kind === 'collection' ? 'p' : 'x';
  return svc.services.db.one(
    `SELECT ${k.key}::text AS id, ${q}.reference, ${q}.callback_token, ${q}.${k.state} AS state, ${q}.send_attempts FROM ${table} WHERE ${owner}.gateway_reference = $1`,
    [gatewayReference],
  );
}

/** MTN's calls of one kind about one of our references: its sends (by the reference MTN keeps) and its status queries. */
function callsAbout(kind: Kind, reference: string): string[] {
  const k = KINDS[kind];
  return fake.calls.filter((c) => (c.method === 'POST' && c.path === k.post && c.reference === reference) || c.path === `${k.get}${reference}`).map((c) => c.method);
}

describe.each(['collection', 'refund', 'payout'] as const)('a %s', (kind) => {
  const k = KINDS[kind];

  it('whose answer was lost is asked about with a status query, never sent again', async () => {
    const ref = await k.start();
    k.swallow(1);
    expect(await engine().sendDue(kind)).toBe(1); // MTN keeps the request and never answers: the call times out
    const r = await requestOf(kind, ref);
    expect(r.state).toBe('unknown');
    expect(k.atMtn(r.reference)).toBeDefined();
    expect(await engine().sendDue(kind)).toBe(0);
    await driven(kind, async () => ((await k.status(ref)) === 'COMPLETED' ? true : undefined), 'settled by the status query');
    expect(callsAbout(kind, r.reference)[0]).toBe('POST');
    expect(callsAbout(kind, r.reference).filter((x) => x === 'POST')).toHaveLength(1);
    expect(callsAbout(kind, r.reference)).toContain('GET');
  });

  it('of unknown outcome is sent again, under the same reference, only after MTN says it does not have it', async () => {
    const ref = await k.start();
    const r = await requestOf(kind, ref);
    // what a send that never reached MTN leaves behind: an unknown outcome, its status query due
    await svc.services.db.none(
      `UPDATE ${kind === 'collection' ? 'processor_requests' : k.table} SET ${k.state} = 'unknown', next_send_at = NULL, next_check_at = $2 WHERE ${kind === 'collection' ? 'collection_id' : 'id'} = $1`,
      [r.id, now()],
    );
    expect(await engine().sendDue(kind)).toBe(0); // not sent blind
    expect(await engine().checkDue(kind)).toBe(1);
    expect(callsAbout(kind, r.reference)).toEqual(['GET']); // MTN: 404 RESOURCE_NOT_FOUND
    expect((await requestOf(kind, ref)).state).toBe('queued');
    expect(await engine().sendDue(kind)).toBe(1);
    expect(callsAbout(kind, r.reference)).toEqual(['GET', 'POST']);
    expect(k.atMtn(r.reference)).toBeDefined();
    await driven(kind, async () => ((await k.status(ref)) === 'COMPLETED' ? true : undefined), 'completed after the resend');
    expect(callsAbout(kind, r.reference).filter((x) => x === 'POST')).toHaveLength(1);
  });

  it('in a final state makes no call when its callback comes, however often', async () => {
    const ref = await k.start();
    await driven(kind, async () => ((await k.status(ref)) === 'COMPLETED' ? true : undefined), 'completed');
    const r = await requestOf(kind, ref);
    const before = callsAbout(kind, r.reference).length;
    const made: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${svc.url}/callbacks/mtn_momo/${r.callback_token}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status: 'SUCCESSFUL' }) });
      expect(res.status).toBe(200);
      offsetMs += 400;
      await engine().checkDue(kind);
      made.push(callsAbout(kind, r.reference).length);
    }
    const extra = made[made.length - 1] - before;
    // a completed payout may still be reversed: asked while the check schedule (two steps here) lasts, no more
    if (kind === 'payout') expect(extra).toBeLessThanOrEqual(2);
    else expect(extra).toBe(0);
    expect(made.slice(3)).toEqual([made[2], made[2], made[2]]);
    expect(await k.status(ref)).toBe('COMPLETED');
  });

  it("claimed by a process that stopped beating is taken over at once, before its lease ends; a live process's claim is left to it", async () => {
    const dead = await k.start();
    const alive = await k.start();
    const at = now();
    // two other processes claimed one each for a send (their lease: a minute) and marked it 'sending'
    await svc.services.db.none(
      `INSERT INTO worker_processes (id, started_at, heartbeat_at) VALUES ('engine-dead', $1, $2), ('engine-alive', $1, $1)
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at`,
      [at, new Date(at.getTime() - 11_000)],
    );
    for (const [ref, process] of [[dead, 'engine-dead'], [alive, 'engine-alive']]) {
      const r = await requestOf(kind, ref);
      await svc.services.db.none(
        `UPDATE ${kind === 'collection' ? 'processor_requests' : k.table} SET ${k.state} = 'sending', send_attempts = 1, next_send_at = $2, claimed_by = $3
         WHERE ${kind === 'collection' ? 'collection_id' : 'id'} = $1`,
        [r.id, new Date(at.getTime() + 60_000), process],
      );
    }
    await svc.services.db.none("UPDATE worker_processes SET heartbeat_at = $1 WHERE id = 'engine-alive'", [now()]);
    expect(await engine().sendDue(kind)).toBe(1);
    // the dead process's call may have reached MTN: an unknown outcome, asked about, never sent blind
    const taken = await requestOf(kind, dead);
    expect(taken).toMatchObject({ state: 'unknown', send_attempts: 2 });
    expect(callsAbout(kind, taken.reference)).toEqual([]);
    expect((await requestOf(kind, alive)).state).toBe('sending');
    await svc.services.db.none("DELETE FROM worker_processes WHERE id IN ('engine-dead', 'engine-alive')");
  });
});

it('traces and counts every kind\'s calls per processor and MID, the lost answers among the errors', async () => {
  const mid = String(m.midId);
  for (const kind of ['collection', 'refund', 'payout']) {
    for (const operation of ['send', 'status']) {
      const span = spans.getFinishedSpans().find((s) => s.name === `processor ${operation}` && s.attributes['paycollect.processor.kind'] === kind);
      expect(span?.attributes).toMatchObject({ 'paycollect.processor': 'mtn_momo', 'paycollect.mid': mid });
    }
  }
  const text = await (await fetch(svc.metricsUrl!)).text();
  const sample = (name: string, labels: Record<string, string>) =>
    text.split('\n').filter((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`))).map((l) => Number(l.split(' ').pop()));
  for (const kind of ['collection', 'refund', 'payout']) {
    expect(sample('paycollect_processor_call_duration_count', { processor: 'mtn_momo', mid, kind, operation: 'send', outcome: 'accepted' })[0]).toBeGreaterThanOrEqual(1);
    expect(sample('paycollect_processor_call_duration_count', { processor: 'mtn_momo', mid, kind, operation: 'status', outcome: 'observed' })[0]).toBeGreaterThanOrEqual(1);
    // each kind's lost answer above: a call without a usable answer
    expect(sample('paycollect_processor_call_errors_total', { processor: 'mtn_momo', mid, kind, operation: 'send', outcome: 'unknown' })[0]).toBeGreaterThanOrEqual(1);
  }
});
