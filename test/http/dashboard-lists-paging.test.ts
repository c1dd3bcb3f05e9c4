// Proves keyset paging on the dashboard's people lists (users, invitations, audit log, go-live requests): following paging.next_cursor while rows are added between pages neither repeats nor skips one, Link carries the cursor, a merchant owner's cursor stays within its business, and a forged cursor is refused.
import LinkHeader from 'http-link-header';
import { createBusiness } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { ApiResponse, TestService } from '../helpers/service';
import { Clock, createUser, signedIn } from '../helpers/users';

const clock = new Clock();
let svc: TestService;
let shop: number;
let seq = 0;

beforeAll(async () => {
  svc = await startTestService({ now: clock.now });
  shop = (await createBusiness(svc, { name: 'Paging Shop' })).id;
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(async () => {
  await svc?.close();
});

type Get = (path: string) => Promise<ApiResponse>;
const idsOf = (res: ApiResponse, key: string) => (res.body.data as Record<string, unknown>[]).map((r) => r[key]);

/**
 * Reads the list whole, then pages through it 3 at a time with `add` run after the first page, and
 * returns what the whole list held before, the pages' rows and the ids `add` made.
 */
async function pageWhileAdding(get: Get, path: string, key: string, add: () => Promise<unknown[]>) {
  const whole = idsOf(await get(`${path}per_page=100`), key);
  let res = await get(`${path}per_page=3`);
  const added = await add();
  const seen = idsOf(res, key);
  while (res.body.paging.next_cursor !== null) {
    const cursor = res.body.paging.next_cursor;
    // the first page was asked without a cursor, so its Link offers page 2; every later one the cursor
    if (seen.length > 3) expect(LinkHeader.parse(res.headers.get('link') ?? '').rel('next')[0].uri).toContain(`cursor=${cursor}`);
    res = await get(`${path}per_page=3&cursor=${cursor}`);
    expect(res.status).toBe(200);
    seen.push(...idsOf(res, key));
  }
  expect(res.body.paging.per_page).toBe(3);
  return { whole, seen, added };
}

const operator: Get = (p) => svc.admin.get(p);

async function addUsers(n: number): Promise<number[]> {
  const made = [];
  for (let i = 0; i < n; i++) made.push((await createUser(svc, { role: 'merchant_viewer', business_id: shop })).id);
  return made;
}

async function invite(n: number): Promise<number[]> {
  const made = [];
  for (let i = 0; i < n; i++) {
    const res = await svc.admin.post('/v1/admin/invitations', { email: `paging.${++seq}@people.example`, role: 'merchant_viewer', business_id: shop });
    made.push(res.body.data.id);
  }
  return made;
}

async function renameShop(n: number): Promise<void> {
  for (let i = 0; i < n; i++) expect((await svc.admin.patch(`/v1/admin/businesses/${shop}`, { name: `Paging Shop ${++seq}` })).status).toBe(200);
}

async function requestGoLive(n: number): Promise<number[]> {
  const made = [];
  for (let i = 0; i < n; i++) {
    clock.advance(1000);
    const id = (await createBusiness(svc, { name: `Waiting ${++seq}` })).id;
    expect((await svc.admin.post(`/v1/admin/businesses/${id}/go-live-request`, {})).status).toBe(200);
    made.push(id);
  }
  return made;
}

it('pages users oldest first: those added meanwhile come at the end, none twice', async () => {
  await addUsers(7);
  const { whole, seen, added } = await pageWhileAdding(operator, `/v1/admin/users?business_id=${shop}&`, 'id', () => addUsers(3));
  expect(whole).toHaveLength(7);
  expect(seen).toEqual([...whole, ...added]);
});

it('pages invitations newest first: those sent meanwhile are ahead of the first page, so none shows twice or goes missing', async () => {
  await invite(8);
  const { whole, seen, added } = await pageWhileAdding(operator, '/v1/admin/invitations?', 'id', () => invite(3));
  expect(whole).toHaveLength(8);
  expect(seen).toEqual(whole);
  const fresh = idsOf(await svc.admin.get('/v1/admin/invitations?per_page=3'), 'id');
  expect(fresh).toEqual([...added].reverse());
  // page numbers, by contrast, shift under the same arrivals
  expect(idsOf(await svc.admin.get('/v1/admin/invitations?per_page=3&page=2'), 'id')).toEqual(whole.slice(0, 3));
});

it('pages the audit log newest first, with its filters kept, while changes are being recorded', async () => {
  await renameShop(7);
  const path = `/v1/admin/audit-log?business_id=${shop}&`;
  const { whole, seen } = await pageWhileAdding(operator, path, 'id', async () => (await renameShop(3), []));
  expect(whole.length).toBeGreaterThanOrEqual(7);
  expect(seen).toEqual(whole);
  const first = await svc.admin.get(`${path}per_page=3`);
  expect(LinkHeader.parse(first.headers.get('link') ?? '').rel('next')[0].uri).toContain(`business_id=${shop}`);
});

it('pages go-live requests oldest first: requests made meanwhile come at the end', async () => {
  await requestGoLive(5);
  const { whole, seen, added } = await pageWhileAdding(operator, '/v1/admin/go-live-requests?', 'business_id', () => requestGoLive(2));
  expect(whole).toHaveLength(5);
  expect(seen).toEqual([...whole, ...added]);
});

it("keeps a merchant owner's cursor within its own business", async () => {
  const other = (await createBusiness(svc, { name: 'Other Team' })).id;
  const owner = await createUser(svc, { role: 'merchant_owner', business_id: other });
  for (let i = 0; i < 4; i++) await createUser(svc, { role: 'merchant_viewer', business_id: other });
  const session = await signedIn(svc, owner);
  const { whole, seen } = await pageWhileAdding((p) => session.get(p), '/v1/admin/users?', 'id', () => addUsers(2));
  expect(seen).toEqual(whole);
  expect(whole).toHaveLength(5);
  const theirs = await session.get('/v1/admin/users?per_page=1');
  const elsewhere = await session.get(`/v1/admin/users?per_page=1&business_id=${shop}&cursor=${theirs.body.paging.next_cursor}`);
  expect(elsewhere.status).toBe(404);
});

it('refuses a cursor no list gave out, and a cursor with page or offset, on every list', async () => {
  const forged = Buffer.from(JSON.stringify(['yesterday', 1])).toString('base64url');
  const first = await svc.admin.get('/v1/admin/users?per_page=1');
  for (const path of ['/v1/admin/users', '/v1/admin/invitations', '/v1/admin/audit-log', '/v1/admin/go-live-requests']) {
    const res = await svc.admin.get(`${path}?cursor=${forged}`);
    expect([path, res.status, res.body.data]).toEqual([path, 400, [{ field: 'cursor', message: 'is not a cursor this list gave out' }]]);
  }
  const mixed = await svc.admin.get(`/v1/admin/users?cursor=${first.body.paging.next_cursor}&page=2`);
  expect(mixed.body.data).toEqual([{ field: 'cursor', message: 'cannot be combined with page or offset' }]);
});
