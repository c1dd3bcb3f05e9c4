// Proves on the real server the changes that two people (or a person and a worker) make at once: two operator admins demoting each other, and two owners of a business demoting or disabling each other, leave exactly one of each pair changed and never the team without an active admin or owner (the other is refused: INVALID_STATE by the last-one guard, or FORBIDDEN or UNAUTHORIZED when the winner's change reached the loser first; never a 500); and re-sends of a webhook while its delivery is under way are each accepted (never a 500 such as a deadlock) and the notification is delivered again.
import { createRealDatabase, SHARED_PG_URL } from '../helpers/db';
import { openPostgres } from '../../src/db';
import { createNotifyMerchant, createPendingCollection, eventually, finishCollection, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { needsRealServer } from '../helpers/requires';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, signedIn } from '../helpers/users';

// locking is proved on the real server: the embedded database has one session (docs/embedded-database.md)
needsRealServer().describe('concurrent changes (real PostgreSQL)', () => {
  let svc: TestService;
  let receiver: Receiver;
  const clock = new Clock();
  let drop: () => Promise<void> = async () => {};
  beforeAll(async () => {
    receiver = await startReceiver();
    const created = await createRealDatabase(SHARED_PG_URL);
    const database = await openPostgres(created.url);
    svc = await startTestService({ database, now: clock.now, env: { WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 50 }, () => '0s').join(',') } });
    drop = async () => {
      await svc.close();
      await database.close();
      await created.drop();
      await receiver.close();
    };
  }, 180_000); // a service start is over a minute on a loaded machine
  afterAll(() => drop());

  const db = () => svc.database.db;
  const outcome = (res: { status: number; body: { code: unknown } }) => `${res.status} ${res.body.code}`;
  const ROUNDS = 5;
  /**
   * Of two people changing each other at once, one wins (200) and the other is refused: by the last-one guard
   * (INVALID_STATE) when both were let in before either change, or because the winner's change reached the
   * loser first, so the loser no longer has the right (FORBIDDEN, demoted) or the session (UNAUTHORIZED, disabled).
   */
  const oneWins = (answers: { status: number; body: { code: unknown } }[]) => {
    const outcomes = answers.map(outcome);
    expect(outcomes.filter((o) => o === '200 200')).toHaveLength(1);
    expect(['400 INVALID_STATE', '403 FORBIDDEN', '401 UNAUTHORIZED']).toContain(outcomes.find((o) => o !== '200 200'));
  };

  it('two operator admins demoting each other at once: one wins, one active admin is left', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      // the only active admins: every earlier one is disabled first
      await db().none("UPDATE users SET disabled_at = now() WHERE role = 'operator_admin'");
      const [a, b] = [await createUser(svc, { role: 'operator_admin', totp: true }), await createUser(svc, { role: 'operator_admin', totp: true })];
      const [sa, sb] = [await signedIn(svc, a, clock), await signedIn(svc, b, clock)];
      const answers = await Promise.all([sa.patch(`/v1/admin/users/${b.id}`, { role: 'operator_support' }), sb.patch(`/v1/admin/users/${a.id}`, { role: 'operator_support' })]);
      oneWins(answers);
      const left = await db().one("SELECT count(*)::int AS n FROM users WHERE id IN ($1, $2) AND role = 'operator_admin' AND disabled_at IS NULL", [a.id, b.id]);
      expect(left.n).toBe(1);
    }
  });

  it('two owners demoting or disabling each other at once: one wins, one active owner is left', async () => {
    const business = await createNotifyMerchant(svc.services, { webhookUrl: receiver.url });
    for (let round = 0; round < ROUNDS; round++) {
      await db().none("UPDATE users SET disabled_at = now() WHERE business_id = $1 AND role = 'merchant_owner'", [business.businessId]);
      const [a, b] = [await createUser(svc, { role: 'merchant_owner', business_id: business.businessId }), await createUser(svc, { role: 'merchant_owner', business_id: business.businessId })];
      const [sa, sb] = [await signedIn(svc, a), await signedIn(svc, b)];
      const change = round % 2 === 0 ? { role: 'merchant_developer' } : { disabled: true };
      const answers = await Promise.all([sa.patch(`/v1/admin/users/${b.id}`, change), sb.patch(`/v1/admin/users/${a.id}`, change)]);
      oneWins(answers);
      const left = await db().one("SELECT count(*)::int AS n FROM users WHERE id IN ($1, $2) AND role = 'merchant_owner' AND disabled_at IS NULL", [a.id, b.id]);
      expect(left.n).toBe(1);
    }
  });

  it('re-sends a webhook while its deliveries are under way: each re-send is accepted, and it is delivered again', async () => {
    const m = await createNotifyMerchant(svc.services, { webhookUrl: receiver.url });
    const admin = await signedIn(svc, await createUser(svc, { role: 'operator_admin', totp: true }), clock);
    // the receiver refuses every attempt at once and each is retried at once: attempts are recorded all the time
    receiver.respond = () => ({ status: 500 });
    const rows = await Promise.all([1, 2].map(async () => finishCollection(svc.services, (await createPendingCollection(svc.services, m)).id)));
    const until = Date.now() + 4000;
    const outcomes = new Set<string>();
    let sent = 0;
    while (Date.now() < until) {
      const answers = await Promise.all(rows.flatMap((row) => [
        admin.post(`/v1/admin/collections/${row.gateway_reference}/notify`),
        svc.merchant(m.jwt).post(`/v1/collections/${row.gateway_reference}/notify`),
      ]));
      for (const a of answers) outcomes.add(outcome(a));
      sent += answers.length;
    }
    expect({ outcomes: [...outcomes] }).toEqual({ outcomes: ['200 200'] });
    expect(sent).toBeGreaterThan(8);
    // answered at last: every notification is delivered
    receiver.respond = () => ({ status: 200 });
    await eventually(async () => (await db().one('SELECT count(*)::int AS n FROM notifications n JOIN collections c ON c.id = n.collection_id WHERE c.business_id = $1 AND n.delivered_at IS NULL', [m.businessId])).n === 0, 30_000, 'every notification delivered');
  });
});
