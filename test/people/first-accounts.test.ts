// Proves the first start's accounts: an operator admin with a generated password (kept mode 600 in DATA_DIR, made once per deployment, two-factor set-up required at its first sign-in), and the sandbox demo's merchant owner (written next to demo-credentials.json) who sees the demo business.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { SessionClient } from '../helpers/users';

describe('the first operator account', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { ADMIN_EMAIL: 'Boss@Operator.example' } });
  }, 180_000);
  afterAll(async () => {
    await svc?.close();
  });

  it('is created on the first start, written to DATA_DIR/operator-user.json (mode 600) and must enrol 2FA', async () => {
    const first = svc.firstOperator;
    expect(first).toEqual({ email: 'boss@operator.example', password: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/), file: path.join(svc.config.dataDir, 'operator-user.json') });
    expect(statSync(first!.file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(first!.file, 'utf8'))).toMatchObject({ email: first!.email, password: first!.password });
    const login = await new SessionClient(svc).login(first!.email, first!.password);
    expect(login.status).toBe(200);
    expect(login.body.data).toMatchObject({ state: 'totp_enrolment_required', user: { role: 'operator_admin', business_id: null } });
    const hash = await svc.services.db.one('SELECT password_hash FROM users WHERE email = $1', [first!.email]);
    expect(hash.password_hash).toMatch(/^\$argon2id\$/);
  });

  it('is not made again by a later start on the same database', async () => {
    const again = await startTestService({ database: svc.database, env: { MASTER_KEY: svc.config.masterKey.toString('base64') } });
    try {
      expect(again.firstOperator).toBeNull();
      expect(await svc.services.db.one("SELECT count(*)::int AS n FROM users WHERE role = 'operator_admin'")).toEqual({ n: 1 });
    } finally {
      await again.close();
    }
  }, 180_000);
});

describe('the sandbox demo merchant user', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { SEED_DEMO: 'true' } });
  }, 180_000);
  afterAll(async () => {
    await svc?.close();
  });

  it('is the demo business owner, written to demo-user.json next to demo-credentials.json, and signs in to its business', async () => {
    const demo = svc.demoUser!;
    expect(path.dirname(demo.file)).toBe(path.dirname(svc.demo!.file));
    expect(JSON.parse(readFileSync(demo.file, 'utf8'))).toMatchObject({ email: demo.email, password: demo.password, business_id: svc.demo!.business_id });
    const client = new SessionClient(svc);
    const login = await client.login(demo.email, demo.password);
    expect(login.body.data).toMatchObject({ state: 'active', user: { role: 'merchant_owner', business_id: svc.demo!.business_id } });
    expect((await client.get(`/v1/admin/businesses/${svc.demo!.business_id}`)).status).toBe(200);
    expect((await client.get('/v1/admin/businesses')).status).toBe(403);
  });
});
