// Proves that the from and to filters of both collection lists include a collection created exactly on either bound, and nothing outside them, down to the first and last moments the contract allows (year 0001, 9999-12-31T23:59:59).
import { mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let svc: TestService;
let m: MerchantSetup;
const at = { early: '2026-01-10T08:00:00', middle: '2026-01-10T09:30:15', late: '2026-01-10T11:00:00' };
const refs: Record<string, string> = {};

// 180 s: a start-up budget for a loaded machine (a service, a merchant with its MIDs, an argon2 token)
beforeAll(async () => {
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '3600000' } });
  m = await setupMerchant(svc);
  for (const [name, when] of Object.entries(at)) {
    const res = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: '256700000009' }));
    refs[name] = res.body.data.gateway_reference;
    // Whole seconds, so that a bound can equal a creation time exactly.
    await svc.services.db.none("UPDATE collections SET created_at = $2::timestamp AT TIME ZONE 'UTC' WHERE gateway_reference = $1", [refs[name], when]);
  }
}, 180_000);
afterAll(async () => {
  await svc?.close();
});

async function listed(query: string): Promise<string[]> {
  const mine = await m.client.get(`/v1/collections?${query}&per_page=100`);
  const operator = await svc.admin.get(`/v1/admin/collections?${query}&business_id=${m.businessId}&per_page=100`);
  expect([mine.status, operator.status]).toEqual([200, 200]);
  const names = (rows: { gateway_reference: string }[]) =>
    Object.keys(refs)
      .filter((n) => rows.some((r) => r.gateway_reference === refs[n]))
      .sort();
  expect(names(operator.body.data)).toEqual(names(mine.body.data));
  return names(mine.body.data);
}

it('includes a collection created exactly at `to`, and none after it', async () => {
  expect(await listed(`to=${at.middle}`)).toEqual(['early', 'middle']);
  expect(await listed(`to=2026-01-10T09:30:14`)).toEqual(['early']);
});

it('includes a collection created exactly at `from`, and none before it', async () => {
  expect(await listed(`from=${at.middle}`)).toEqual(['late', 'middle']);
  expect(await listed(`from=2026-01-10T09:30:16`)).toEqual(['late']);
});

it('takes both bounds together, each inclusive', async () => {
  expect(await listed(`from=${at.middle}&to=${at.middle}`)).toEqual(['middle']);
  expect(await listed(`from=${at.early}&to=${at.late}`)).toEqual(['early', 'late', 'middle']);
});

it('takes the first and last moments the contract allows: nothing after the last, everything up to it, with exact totals', async () => {
  const total = async (query: string) => Number((await m.client.get(`/v1/collections?${query}`)).headers.get('x-ph-total'));
  expect(await listed('from=9999-12-31T23:59:59')).toEqual([]);
  expect(await listed('from=9999-12-31T00:00:00Z')).toEqual([]);
  expect(await total('from=9999-12-31T23:59:59')).toBe(0);
  expect(await listed('to=9999-12-31T23:59:59')).toEqual(['early', 'late', 'middle']);
  expect(await listed('from=0001-01-01T00:00:00&to=9999-12-31T23:59:59Z')).toEqual(['early', 'late', 'middle']);
  expect(await total('from=0001-01-01T00:00:00&to=9999-12-31T23:59:59Z')).toBe(3);
  expect(await listed('to=0001-01-01T23:59:59')).toEqual([]);
});
