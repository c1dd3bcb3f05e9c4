// Proves configuration is read from the environment with defaults, and bad values stop start-up with one clear line.
import { mkdtempSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ConfigError, loadConfig, parseSchedule, refuseUnsafeLive } from '../src/config';

const dir = () => mkdtempSync(path.join(os.tmpdir(), 'paycollect-config-'));

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({ DATA_DIR: dir() });
    expect(c.port).toBe(8080);
    expect(c.appEnv).toBe('sandbox');
    expect(c.databaseUrl).toBeNull();
    expect(c.databasePoolMax).toBe(10);
    expect(c.publicBaseUrl).toBe('http://localhost:8080');
    expect(c.webhookAllowPrivate).toBe(true);
    expect(c.seedDemo).toBe(true);
    expect(c.rateLimitRps).toBe(100);
    expect(c.sandboxMmDelayMs).toBe(3000);
    expect(c.pendingTtlSeconds).toBe(1800);
    expect(c.webhookRetryScheduleMs).toEqual([0, 10_000, 60_000, 300_000, 1_800_000, 3_600_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000]);
    expect(c.sandboxMmSuccess).toEqual(['256777000001', '256777000002']);
    expect(c.sandboxCard3dsFailure).toBe('4000000000003014');
    expect([c.sessionIdleMinutes, c.sessionAbsoluteHours, c.adminEmail]).toEqual([30, 12, 'admin@paycollect.local']);
    // no proxy is trusted unless named; an owner waits three days before approving; a loosened guard two
    expect([c.trustProxy, c.ownerApprovalWaitHours, c.disbursementGuardNoticeHours]).toEqual([[], 72, 48]);
  });

  it('reads no rate feed by default, and the feeds and their settings when set', () => {
    expect(loadConfig({ DATA_DIR: dir() }).rates).toEqual({
      feeds: [],
      baseUrls: { ecb: 'https://www.ecb.europa.eu/stats/eurofxref', frankfurter: 'https://api.frankfurter.dev/v1' },
      timeoutMs: 10_000,
      refreshMinutes: 60,
      maxAges: { ecbBusinessDays: 2, frankfurterBusinessDays: 2, operatorHours: 0 },
      quoteTtlSeconds: 300,
      jumpPercent: 10,
    });
    const set = loadConfig({ DATA_DIR: dir(), RATE_FEEDS: 'frankfurter, ecb', FRANKFURTER_BASE_URL: 'http://rates.internal:8080/', OPERATOR_RATE_MAX_AGE_HOURS: '48', FX_QUOTE_TTL_SECONDS: '120', RATE_JUMP_PERCENT: '25' }).rates;
    expect(set).toMatchObject({ feeds: ['frankfurter', 'ecb'], baseUrls: { frankfurter: 'http://rates.internal:8080' }, maxAges: { operatorHours: 48 }, quoteTtlSeconds: 120, jumpPercent: 25 });
  });

  it('reads the proxies to trust as addresses or CIDR blocks', () => {
    expect(loadConfig({ DATA_DIR: dir(), TRUST_PROXY: '10.1.0.0/16, 203.0.113.7,2001:db8::/32' }).trustProxy).toEqual(['10.1.0.0/16', '203.0.113.7', '2001:db8::/32']);
  });

  it('defaults live to no private webhooks and no demo merchant', () => {
    const c = loadConfig({ DATA_DIR: dir(), APP_ENV: 'live' });
    expect(c.webhookAllowPrivate).toBe(false);
    expect(c.seedDemo).toBe(false);
  });

  it('generates the operator key once, mode 600, and keeps it across starts', () => {
    const d = dir();
    const first = loadConfig({ DATA_DIR: d });
    expect(first.generated.operatorApiKey).toBe(true);
    expect(statSync(path.join(d, 'operator-key')).mode & 0o777).toBe(0o600);
    const second = loadConfig({ DATA_DIR: d });
    expect(second.generated.operatorApiKey).toBe(false);
    expect(second.operatorApiKey).toBe(first.operatorApiKey);
    expect(second.jwtSecret).toBe(first.jwtSecret);
    expect(second.masterKey.equals(first.masterKey)).toBe(true);
  });

  it.each([
    [{ APP_ENV: 'staging' }, /APP_ENV must be sandbox or live/],
    [{ PORT: 'eighty' }, /PORT must be a whole number/],
    [{ PORT: '70000' }, /PORT must be between/],
    [{ DATABASE_POOL_MAX: '0' }, /DATABASE_POOL_MAX must be between/],
    [{ DATABASE_BATCH_LANES: '0' }, /DATABASE_BATCH_LANES must be between/],
    [{ HEAP_GROWING_PERCENT: '-5' }, /HEAP_GROWING_PERCENT must be a whole number/],
    [{ HEAP_GROWING_PERCENT: '5000' }, /HEAP_GROWING_PERCENT must be between 0 and 1000/],
    [{ DATABASE_URL: 'not a url' }, /DATABASE_URL is not a valid URL/],
    [{ DATABASE_URL: 'mysql://x/y' }, /DATABASE_URL must use/],
    [{ PUBLIC_BASE_URL: 'ftp://x' }, /PUBLIC_BASE_URL must use/],
    [{ SMTP_URL: '::' }, /SMTP_URL is not a valid URL/],
    [{ WEBHOOK_RETRY_SCHEDULE: '0s,soon' }, /WEBHOOK_RETRY_SCHEDULE has an unparsable delay "soon"/],
    [{ WEBHOOK_ALLOW_PRIVATE: 'maybe' }, /WEBHOOK_ALLOW_PRIVATE must be true or false/],
    [{ SANDBOX_MM_SUCCESS: '256777000001,+256' }, /SANDBOX_MM_SUCCESS has an invalid entry/],
    [{ MASTER_KEY: 'c2hvcnQ=' }, /MASTER_KEY must be 32 bytes/],
    [{ SESSION_IDLE_MINUTES: '0' }, /SESSION_IDLE_MINUTES must be between 1 and 1440/],
    [{ SESSION_ABSOLUTE_HOURS: 'half a day' }, /SESSION_ABSOLUTE_HOURS must be a whole number/],
    [{ ADMIN_EMAIL: 'admin' }, /ADMIN_EMAIL must be an email address/],
    [{ TRUST_PROXY: 'loadbalancer.internal' }, /TRUST_PROXY has an entry "loadbalancer.internal" that is not an IP address or a CIDR block/],
    [{ TRUST_PROXY: '10.0.0.0/08' }, /TRUST_PROXY has an entry "10.0.0.0\/08"/],
    [{ TRUST_PROXY: '10.0.0.0/33' }, /TRUST_PROXY has an entry "10.0.0.0\/33"/],
    [{ OWNER_APPROVAL_WAIT_HOURS: 'three days' }, /OWNER_APPROVAL_WAIT_HOURS must be a whole number/],
    [{ DISBURSEMENT_GUARD_NOTICE_HOURS: '0' }, /DISBURSEMENT_GUARD_NOTICE_HOURS must be between 1 and 2160/],
    [{ RATE_FEEDS: 'ecb,fed' }, /RATE_FEEDS has an invalid entry "fed"/],
    [{ ECB_RATES_BASE_URL: 'ftp://ecb' }, /ECB_RATES_BASE_URL must use http: or https:/],
    [{ RATE_FEED_TIMEOUT_MS: '50' }, /RATE_FEED_TIMEOUT_MS must be between 100 and 120000/],
    [{ ECB_RATE_MAX_AGE_BUSINESS_DAYS: 'two' }, /ECB_RATE_MAX_AGE_BUSINESS_DAYS must be a whole number/],
    [{ RATE_JUMP_PERCENT: '0' }, /RATE_JUMP_PERCENT must be between 1 and 1000/],
  ])('refuses %j with one clear line', (env, message) => {
    expect(() => loadConfig({ DATA_DIR: dir(), ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ DATA_DIR: dir(), ...env })).toThrow(message);
  });

  it('parses retry schedules in every unit', () => {
    expect(parseSchedule('250ms,2s,3m,1h,1d')).toEqual([250, 2000, 180_000, 3_600_000, 86_400_000]);
  });
});

describe('live safety', () => {
  const live = { APP_ENV: 'live', OPERATOR_API_KEY: 'op_config_test_key_0123456789' };

  it('refuses live on the embedded database unless asked for a demo, and drains 5 s on SIGTERM in live', () => {
    expect(() => refuseUnsafeLive(loadConfig({ DATA_DIR: dir(), ...live }))).toThrow(/^APP_ENV=live needs DATABASE_URL/);
    expect(() => refuseUnsafeLive(loadConfig({ DATA_DIR: dir(), ...live, ALLOW_EMBEDDED_LIVE: 'true' }))).not.toThrow();
    const onServer = loadConfig({ DATA_DIR: dir(), ...live, DATABASE_URL: 'postgres://u@db.example/paycollect' });
    expect(() => refuseUnsafeLive(onServer)).not.toThrow();
    expect(onServer.shutdownDrainMs).toBe(5000);
    expect(loadConfig({ DATA_DIR: dir() }).shutdownDrainMs).toBe(0);
    expect(() => loadConfig({ DATA_DIR: dir(), SHUTDOWN_DRAIN_SECONDS: '-1' })).toThrow(/SHUTDOWN_DRAIN_SECONDS must be a whole number/);
  });

  it('the entry point stops with one line and exit code 2, creating no database', () => {
    const dataDir = dir();
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: path.resolve(__dirname, '..'),
      env: { ...process.env, ...live, DATA_DIR: dataDir, DATABASE_URL: '', ALLOW_EMBEDDED_LIVE: '', NODE_OPTIONS: '' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([
      'paycollect: configuration error: APP_ENV=live needs DATABASE_URL (a PostgreSQL server); the embedded database is for the sandbox (ALLOW_EMBEDDED_LIVE=true runs a live demo on it anyway)',
    ]);
    expect(existsSync(path.join(dataDir, 'pg'))).toBe(false);
  });
});
