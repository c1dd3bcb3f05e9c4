// Proves the refunds of one collection as the API shows them: the operator API's list (listAdminCollectionRefunds) gives every refund newest first with its state after a completed partial refund and a failed one, the same records as the merchant API's with `held_reason` and `resolution` (null here: nothing held); getCollection and getAdminCollection show them in short while lists keep the plain record; whoever may see the collection may read them (viewer, support, operator) and another business's merchant user gets NOT_FOUND; a malformed or unknown reference gets a clear error and changes nothing.
import { eventually, mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, signedIn } from '../helpers/users';
import type { SessionClient } from '../helpers/users';

const clock = new Clock();
let svc: TestService;
let a: MerchantSetup;
let b: MerchantSetup;
const as: Record<string, SessionClient> = {};

beforeAll(async () => {
  svc = await startTestService({ now: clock.now, env: { SANDBOX_MM_DELAY_MS: '3600000', PROCESSOR_CHECK_SCHEDULE: '100ms,200ms' } });
  a = await setupMerchant(svc);
  b = await setupMerchant(svc);
  const people = {
    viewer: await createUser(svc, { role: 'merchant_viewer', business_id: a.businessId }),
    support: await createUser(svc, { role: 'operator_support', totp: true }),
    otherOwner: await createUser(svc, { role: 'merchant_owner', business_id: b.businessId }),
  };
  for (const [name, user] of Object.entries(people)) as[name] = await signedIn(svc, user, clock);
}, 180_000); // a service start and three people signed in: over a minute on a loaded machine
afterAll(async () => {
  await svc?.close();
});

/** A COMPLETED 50,000 UGX mobile money collection of business a, through the sandbox tools. */
async function completed(): Promise<string> {
  const created = await a.client.post('/v1/collections/request-to-pay', mobileMoney({ amount: 50000, account_number: '256700000009' }));
  expect(created.status).toBe(200);
  const reference = created.body.data.gateway_reference;
  expect((await a.client.post(`/v1/sandbox/collections/${reference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
  return reference;
}

async function refunded(collection: string, amount: number, status: string) {
  const res = await a.client.post(`/v1/collections/${collection}/refunds`, { amount, merchant_reference: ref('RFD'), reason: `refund of ${amount}` });
  expect(res.status).toBe(200);
  const reference = res.body.data.gateway_reference as string;
  return eventually(async () => {
    const r = await a.client.get(`/v1/refunds/${reference}`);
    return r.body.data.transaction_status === status ? r.body.data : undefined;
  }, 15_000, `refund ${reference} ${status}`);
}

/** A merchant API refund record as the operator API lists it: nothing held, so no reason and no decision. */
const adminOf = (record: Record<string, unknown>) => ({ ...record, held_reason: null, resolution: null });

/** What a read must leave as it was: the refunds, the collections' refunded parts, the audit log. */
async function snapshot() {
  return svc.database.db.one(
    `SELECT (SELECT count(*)::int FROM refunds) AS refunds,
            (SELECT coalesce(sum(refunded_minor), 0)::text FROM collections) AS refunded,
            (SELECT count(*)::int FROM audit_log) AS audit`,
  );
}

describe('a collection with a completed partial refund and a failed one', () => {
  let collection: string;
  let done: Record<string, unknown>;
  let failed: Record<string, unknown>;
  beforeAll(async () => {
    collection = await completed();
    done = await refunded(collection, 20000, 'COMPLETED');
    // the simulator fails an amount whose cents are .13, after PROCESSING
    failed = await refunded(collection, 100.13, 'FAILED');
  }, 120_000);

  it('lists both to the operator, newest first, as the merchant API shows each', async () => {
    const res = await svc.admin.get(`/v1/admin/collections/${collection}/refunds`);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Refunds retrieved');
    expect(res.body.data).toEqual([adminOf(failed), adminOf(done)]);
    expect(res.body.data.map((r: { transaction_status: string }) => r.transaction_status)).toEqual(['FAILED', 'COMPLETED']);
    expect(failed).toMatchObject({ amount: 100.13, pending_reason: null, failure_reason: expect.any(String), claim_url: null });
    expect(done).toMatchObject({ amount: 20000, account_amount: 20000, failure_reason: null, reason: 'refund of 20000' });
  });

  it('shows them in short on getCollection and getAdminCollection; the list keeps the plain record', async () => {
    const summary = (r: Record<string, unknown>) => ({
      gateway_reference: r.gateway_reference, merchant_reference: r.merchant_reference, amount: r.amount, transaction_status: r.transaction_status,
    });
    const one = await a.client.get(`/v1/collections/${collection}`);
    expect(one.body.data).toMatchObject({ refunded_amount: 20000, refunds: [summary(failed), summary(done)] });
    const admin = await svc.admin.get(`/v1/admin/collections/${collection}`);
    expect(admin.body.data).toMatchObject({ refunded_amount: 20000, refunds: [summary(failed), summary(done)] });
    const list = await a.client.get(`/v1/collections?merchant_reference=${one.body.data.merchant_reference}`);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ gateway_reference: collection, refunded_amount: 20000 });
    expect(list.body.data[0]).not.toHaveProperty('refunds');
    const adminList = await svc.admin.get(`/v1/admin/collections?merchant_reference=${one.body.data.merchant_reference}`);
    expect(adminList.body.data[0]).not.toHaveProperty('refunds');
  });

  it("lets the business's viewer and operator support read them, and gives another business's owner NOT_FOUND", async () => {
    for (const who of ['viewer', 'support']) {
      const res = await as[who].get(`/v1/admin/collections/${collection}/refunds`);
      expect([who, res.status, res.body.data]).toEqual([who, 200, [adminOf(failed), adminOf(done)]]);
    }
    const before = await snapshot();
    const other = await as.otherOwner.get(`/v1/admin/collections/${collection}/refunds`);
    expect([other.status, other.body.code]).toEqual([404, 'NOT_FOUND']);
    expect(other.text).not.toContain(String(done.gateway_reference));
    expect(await snapshot()).toEqual(before);
  });
});

it('answers an empty list, and empty refunds on the collection, before any refund', async () => {
  const collection = await completed();
  expect((await svc.admin.get(`/v1/admin/collections/${collection}/refunds`)).body.data).toEqual([]);
  expect((await a.client.get(`/v1/collections/${collection}`)).body.data.refunds).toEqual([]);
});

it('refuses a malformed reference with VALIDATION_ERROR and an unknown one with NOT_FOUND, changing nothing', async () => {
  const before = await snapshot();
  const malformed = await svc.admin.get(`/v1/admin/collections/${'P'.repeat(65)}/refunds`);
  expect([malformed.status, malformed.body.code]).toEqual([400, 'VALIDATION_ERROR']);
  expect(malformed.body.data).toEqual([expect.objectContaining({ field: expect.stringContaining('gateway_reference') })]);
  const unknown = await svc.admin.get('/v1/admin/collections/PCNOSUCHCOLLECTION0000/refunds');
  expect([unknown.status, unknown.body.code, unknown.body.message]).toEqual([404, 'NOT_FOUND', 'No collection with this gateway_reference']);
  const viewerUnknown = await as.viewer.get('/v1/admin/collections/PCNOSUCHCOLLECTION0000/refunds');
  expect([viewerUnknown.status, viewerUnknown.body.code]).toEqual([404, 'NOT_FOUND']);
  expect(await snapshot()).toEqual(before);
});
