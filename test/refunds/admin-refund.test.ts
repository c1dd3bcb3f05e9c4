// Proves the dashboard's Refund operation (createAdminRefund) and who may use it: a merchant's owner and developer refund their own business's collections, audited under the person; a viewer, operator support and another business's owner are refused and nothing changes; the refund's notifications go to the collection's API token's webhook.
import { mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, signedIn } from '../helpers/users';
import type { SessionClient } from '../helpers/users';

const clock = new Clock();
let svc: TestService;
let hooks: Receiver;
let a: MerchantSetup;
let b: MerchantSetup;
const as: Record<string, SessionClient> = {};

beforeAll(async () => {
  hooks = await startReceiver();
  svc = await startTestService({ now: clock.now, env: { SANDBOX_MM_DELAY_MS: '3600000', PROCESSOR_CHECK_SCHEDULE: '100ms', WEBHOOK_RETRY_SCHEDULE: '0s,100ms' } });
  a = await setupMerchant(svc, { webhookUrl: hooks.url });
  b = await setupMerchant(svc);
  const people = {
    owner: await createUser(svc, { role: 'merchant_owner', business_id: a.businessId }),
    developer: await createUser(svc, { role: 'merchant_developer', business_id: a.businessId }),
    viewer: await createUser(svc, { role: 'merchant_viewer', business_id: a.businessId }),
    support: await createUser(svc, { role: 'operator_support', totp: true }),
    otherOwner: await createUser(svc, { role: 'merchant_owner', business_id: b.businessId }),
  };
  for (const [name, user] of Object.entries(people)) as[name] = await signedIn(svc, user, clock);
}, 180_000); // five people signed in: over a minute on a loaded embedded database
afterAll(async () => {
  await svc?.close();
  await hooks?.close();
});

async function completed(): Promise<string> {
  const created = await a.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: '256700000009' }));
  const reference = created.body.data.gateway_reference;
  expect((await a.client.post(`/v1/sandbox/collections/${reference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
  return reference;
}

async function state(collection: string) {
  const refunds = await svc.database.db.one('SELECT count(*)::int AS n FROM refunds r JOIN collections c ON c.id = r.collection_id WHERE c.gateway_reference = $1', [collection]);
  const audit = await svc.database.db.one("SELECT count(*)::int AS n FROM audit_log WHERE action IN ('createAdminRefund', 'createRefund')");
  const wallet = (await a.client.get('/v1/data/wallets/UGX/balance')).body.data;
  return { refunds: refunds.n, audit: audit.n, wallet };
}

it.each(['owner', 'developer'])('lets the merchant %s refund, audited under the person, notified to the collection\'s webhook', async (who) => {
  const collection = await completed();
  const res = await as[who].post(`/v1/admin/collections/${collection}/refunds`, { amount: 1500, merchant_reference: ref('RFD'), reason: 'Returned goods' });
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ collection_gateway_reference: collection, amount: 1500, transaction_status: 'PENDING' });
  const entries = await svc.database.db.any(
    "SELECT actor_type, actor_email, action, business_id FROM audit_log WHERE action IN ('createAdminRefund', 'createRefund') AND (after->>'gateway_reference') = $1",
    [res.body.data.gateway_reference],
  );
  expect(entries).toEqual([{ actor_type: 'user', actor_email: expect.stringContaining('@people.example'), action: 'createAdminRefund', business_id: a.businessId }]);
  const reference = res.body.data.gateway_reference;
  await eventually(() => hooks.received.some((r) => JSON.parse(r.body).gateway_reference === reference && JSON.parse(r.body).transaction_status === 'COMPLETED'), 15_000, 'refund webhook');
  // the merchant API sees the same refund
  expect((await a.client.get(`/v1/refunds/${reference}`)).body.data.transaction_status).toBe('COMPLETED');
});

it.each([
  ['viewer', 403, 'FORBIDDEN'],
  ['support', 403, 'FORBIDDEN'],
  ['otherOwner', 404, 'NOT_FOUND'],
])('refuses the %s, and nothing changes', async (who, status, code) => {
  const collection = await completed();
  const before = await state(collection);
  const res = await as[who].post(`/v1/admin/collections/${collection}/refunds`, { amount: 1500, merchant_reference: ref('RFD') });
  expect(res.status).toBe(status);
  expect(res.body.code).toBe(code);
  expect(await state(collection)).toEqual(before);
});

it('answers the merchant API\'s refusals in the dashboard too: over-refund, and a replay', async () => {
  const collection = await completed();
  const body = { amount: 50000, merchant_reference: ref('RFD') };
  const first = await as.owner.post(`/v1/admin/collections/${collection}/refunds`, body);
  expect(first.status).toBe(200);
  const again = await as.owner.post(`/v1/admin/collections/${collection}/refunds`, body);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(again.body.data.gateway_reference).toBe(first.body.data.gateway_reference);
  const over = await as.owner.post(`/v1/admin/collections/${collection}/refunds`, { amount: 1, merchant_reference: ref('RFD') });
  expect(over.body).toMatchObject({ code: 'VALIDATION_ERROR', data: [{ field: 'amount' }] });
});
