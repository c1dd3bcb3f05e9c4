// Proves on the real server that a payment link's limit of completed payments holds when customers pay at once: with a limit of one, fifty submissions at the same moment make exactly one collection (which completes, and is the one charge) while the forty-nine others get the 410 "no longer available" page and write nothing; a failed attempt frees its slot for the next customer.
import { createRealDatabase, SHARED_PG_URL } from '../helpers/db';
import { openPostgres } from '../../src/db';
import { eventually, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { openLink, postLink } from '../helpers/link-pages';
import { expectOk } from '../helpers/merchants';
import { needsRealServer } from '../helpers/requires';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

const CUSTOMERS = 50;

// locking is proved on the real server, in every pass: the embedded database has one session
// (docs/embedded-database.md), so this suite makes its own database on the server (SHARED_PG_URL)
needsRealServer().describe('a payment link limit under concurrency (real PostgreSQL)', () => {
  let svc: TestService;
  let m: MerchantSetup;
  let drop: () => Promise<void> = async () => {};
  beforeAll(async () => {
    const created = await createRealDatabase(SHARED_PG_URL);
    const database = await openPostgres(created.url);
    // every customer here comes from this one address: the per-client count must not be what stops them
    svc = await startTestService({ database, env: { SANDBOX_MM_DELAY_MS: '50', PAYMENT_LINK_CLIENT_ATTEMPTS_PER_MINUTE: '1000' } });
    m = await setupMerchant(svc);
    drop = async () => {
      await svc.close();
      await database.close();
      await created.drop();
    };
  }, 180_000);
  afterAll(() => drop());

  const link = async () =>
    expectOk(await m.client.post('/v1/payment-links', { title: 'One-off commission', amount: 75000, currency: 'UGX', payment_methods: ['MOBILE_MONEY'], completed_limit: 1 })) as { link_id: string };

  const open = (linkId: string) => openLink(svc.url, linkId);
  const pay = (linkId: string, opened: { cookie: string; csrf: string }, phone: string) => postLink(svc.url, linkId, opened, { method: 'MOBILE_MONEY', phone });

  const collectionsOf = (linkId: string) =>
    svc.database.db.any<{ gateway_reference: string; status: string }>(
      `SELECT c.gateway_reference, c.status FROM payment_link_attempts a JOIN payment_links l ON l.id = a.link_id JOIN collections c ON c.id = a.collection_id
       WHERE l.link_id = $1`,
      [linkId],
    );

  it(`with a limit of one, ${CUSTOMERS} customers at once: exactly one is charged, the others are told the link is no longer available`, async () => {
    const { link_id: linkId } = await link();
    const forms = await Promise.all(Array.from({ length: CUSTOMERS }, () => open(linkId)));
    expect(forms.every((f) => f.status === 200 && f.csrf !== '')).toBe(true);
    const answers = await Promise.all(forms.map((f) => pay(linkId, f, '256777000001')));
    expect(answers.filter((a) => a.status === 303)).toHaveLength(1);
    const refused = answers.filter((a) => a.status !== 303);
    expect(refused.map((a) => a.status)).toEqual(Array(CUSTOMERS - 1).fill(410));
    expect(refused.every((a) => a.html.includes('no longer available'))).toBe(true);
    const made = await collectionsOf(linkId);
    expect(made).toHaveLength(1);
    expect((await svc.database.db.one<{ n: number }>('SELECT count(*)::int AS n FROM collections WHERE business_id = $1', [m.businessId])).n).toBe(1);
    expect((await svc.database.db.one<{ n: number }>('SELECT count(*)::int AS n FROM payment_link_attempts')).n).toBe(1);
    await eventually(async () => ((await collectionsOf(linkId))[0].status === 'COMPLETED' ? true : undefined), 10_000, 'completion');
    const counted = expectOk(await m.client.get(`/v1/payment-links/${linkId}`));
    expect([counted.attempts, counted.completed_payments, counted.amount_collected]).toEqual([1, 1, 75000]);
    expect((await open(linkId)).status).toBe(410);
  }, 60_000);

  it('a failed attempt frees its slot for the next customer', async () => {
    const { link_id: linkId } = await link();
    expect((await pay(linkId, await open(linkId), '256777000003')).status).toBe(303);
    // while it is under way the slot is taken
    expect((await open(linkId)).status).toBe(410);
    await eventually(async () => ((await collectionsOf(linkId))[0].status === 'FAILED' ? true : undefined), 10_000, 'failure');
    expect((await pay(linkId, await open(linkId), '256777000001')).status).toBe(303);
    const statuses = (await collectionsOf(linkId)).map((c) => c.status);
    expect(statuses).toHaveLength(2);
    expect(statuses.filter((st) => st === 'FAILED')).toHaveLength(1);
  });
});
