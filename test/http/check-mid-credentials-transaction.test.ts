// Proves checkMidCredentials holds no database transaction while the processor is slow to answer: with the fake MTN's token endpoint held open, the pool answers other work and PostgreSQL shows none of our connections idle in a transaction; the check is still audited once the answer comes.
import type http from 'node:http';
import { FakeMtnMomo } from '../fakes/mtn-momo';
import { createBusiness, expectOk } from '../helpers/merchants';
import { eventually } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

/** A fake MTN whose token endpoint waits until the test lets it answer. */
class SlowTokenMtn extends FakeMtnMomo {
  waiting = 0;
  private release: () => void = () => undefined;
  private gate = new Promise<void>((resolve) => (this.release = resolve));

  answer(): void {
    this.release();
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL, raw: string): Promise<void> {
    if (url.pathname === '/collection/token/') {
      this.waiting += 1;
      await this.gate;
    }
    return super.handle(req, res, url, raw);
  }
}

let fake: SlowTokenMtn;
let svc: TestService;

beforeAll(async () => {
  fake = new SlowTokenMtn();
  await fake.start();
  svc = await startTestService({ env: { MTN_MOMO_BASE_URL: fake.url, PROCESSOR_TIMEOUT_MS: '20000' } });
}, 120_000);
afterAll(async () => {
  fake?.answer();
  await svc?.close();
  await fake?.stop();
});

const within = <T>(ms: number, work: Promise<T>) =>
  Promise.race([work, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms: a transaction holds the connection`)), ms))]);

it('keeps no transaction open across the processor call, and audits the check after it', async () => {
  const b = await createBusiness(svc);
  const mid = expectOk(await svc.admin.post(`/v1/admin/businesses/${b.id}/mids`, {
    business_name: 'Kampala Books', service_type: 'mtn_momo', payment_method: 'MOBILE_MONEY', currency: 'UGX', credentials: fake.credentials(),
  }));
  const check = svc.admin.post(`/v1/admin/mids/${mid.id}/check-credentials`);
  await eventually(() => fake.waiting > 0 || undefined, 10_000, 'the token request at the processor');

  // the embedded database has one connection: a transaction held across the call would block this read
  expect(await within(5_000, svc.services.db.one<{ n: number }>('SELECT count(*)::int AS n FROM mids WHERE id = $1', [mid.id]))).toEqual({ n: 1 });
  if (process.env.TEST_DATABASE_URL) {
    // a worker's own transaction is idle between statements for moments only; the call is held far longer
    await new Promise((r) => setTimeout(r, 1_000));
    const open = await svc.services.db.any(
      `SELECT pid, state, query FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'
          AND now() - state_change > interval '500 milliseconds'`,
    );
    expect(open).toEqual([]);
  }
  expect(await svc.services.db.oneOrNone("SELECT 1 FROM audit_log WHERE action = 'checkMidCredentials' AND target_id = $1", [String(mid.id)])).toBeNull();

  fake.answer();
  expect(expectOk(await check)).toEqual({ mid_id: mid.id, service_type: 'mtn_momo', ok: true, detail: 'MTN issued an access token' });
  const entry = await svc.services.db.one("SELECT business_id, target_type, target_id FROM audit_log WHERE action = 'checkMidCredentials' AND target_id = $1", [String(mid.id)]);
  expect(entry).toEqual({ business_id: b.id, target_type: 'mid', target_id: String(mid.id) });
}, 60_000);
