// Proves the jump guard of the daily feeds through the public API, against a fake ECB over real sockets: a day whose rate for a pair moves more than RATE_JUMP_PERCENT from the rate in use is held with its source, as_of and the previous rate, and not used (conversions keep the last rate, which goes stale on its own into RATE_UNAVAILABLE); it is used only once an operator admin accepts it, once (two decisions at once: one taken, the other INVALID_STATE), with who and when on the jump and in the audit log; a refused one stays unused and is not held again; a newer day supersedes a held jump; the operator's own rate is never held; the operator's watch shows each pair's age, staleness and held jump, and each feed's last refresh and error; bad input (an unknown pair, no held jump, another rate, support's or a merchant's role) is a clear error that changes nothing.
import { FakeEcb } from '../fakes/ecb';
import { mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { accessToken, errorFields, expectOk } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { databaseState } from '../helpers/state';
import { createUser, signedIn } from '../helpers/users';
import type { Clock, SessionClient } from '../helpers/users';

const ecb = new FakeEcb({ date: '2026-11-26', rates: { USD: '1.0823', KES: '140.5', UGX: '4100.25' } });
let clock = new Date('2026-11-27T10:00:00Z'); // a Friday
/** the test's clock as signedIn moves it past a two-factor code */
const testClock = { advance: (ms: number) => (clock = new Date(clock.getTime() + ms)) } as unknown as Clock;
let svc: TestService;
let m: MerchantSetup;

beforeAll(async () => {
  await ecb.start();
  svc = await startTestService({
    env: { RATE_FEEDS: 'ecb', ECB_RATES_BASE_URL: ecb.url, RATE_FEED_TIMEOUT_MS: '300', RATE_JUMP_PERCENT: '10' },
    now: () => clock,
    workers: false,
  });
  const mids = ['UGX', 'KES', 'USD'].map((currency) => ({ payment_method: 'MOBILE_MONEY', currency }));
  m = await setupMerchant(svc, { defaultCurrency: 'UGX', mids });
});
afterAll(async () => {
  await svc?.close();
  await ecb.stop();
});

async function pay(currency: string, amount: number) {
  const client = svc.merchant(await accessToken(svc, m.apiKey, m.apiSecret));
  return client.post('/v1/collections/request-to-pay', mobileMoney({ currency, amount }));
}

async function inUse(quote: string) {
  return svc.services.db.one("SELECT rate::text, source, as_of FROM fx_rates WHERE base = 'EUR' AND quote = $1", [quote]);
}

function jumpsOf(quote: string) {
  return svc.services.db.any("SELECT rate::text, source, as_of, previous_rate::text, decision, decided_by, decided_at FROM fx_rate_jumps WHERE base = 'EUR' AND quote = $1 ORDER BY id", [quote]);
}

async function operatorAdmin(): Promise<{ session: SessionClient; email: string }> {
  const user = await createUser(svc, { role: 'operator_admin', totp: true });
  return { session: await signedIn(svc, user, testClock), email: user.email };
}

async function watch() {
  return expectOk(await svc.admin.get('/v1/admin/fx-rates/watch'));
}

it('holds a jump beyond RATE_JUMP_PERCENT with its source, as_of and the previous rate, and keeps converting at the rate in use', async () => {
  expect((await svc.services.rates.refresh('ecb')).stored).toBe(3);
  clock = new Date('2026-11-30T17:00:00Z'); // Monday
  ecb.day = { date: '2026-11-30', rates: { USD: '1.09', KES: '162.4', UGX: '4101' } };
  expect(await svc.services.rates.refresh('ecb')).toEqual({ feed: 'ecb', stored: 2, held: 1, error: null });
  expect(await inUse('KES')).toEqual({ rate: '140.500000000000', source: 'ecb', as_of: new Date('2026-11-26T00:00:00Z') });
  expect(await jumpsOf('KES')).toEqual([
    { rate: '162.400000000000', source: 'ecb', as_of: new Date('2026-11-30T00:00:00Z'), previous_rate: '140.500000000000', decision: null, decided_by: null, decided_at: null },
  ]);
  // 1000 KES x 4101 / 140.5: the last rate, not the held one
  expect((await pay('KES', 1000)).body.data).toMatchObject({ account_currency: 'UGX', account_amount: 29188.61 });
  // the same day again (a second look the same day) holds nothing more and writes nothing
  expect(await svc.services.rates.refresh('ecb')).toEqual({ feed: 'ecb', stored: 0, held: 0, error: null });
  expect(await jumpsOf('KES')).toHaveLength(1);
});

it("shows each pair's age, staleness and held jump, and each feed's last refresh and error", async () => {
  ecb.mode = 'error';
  try {
    clock = new Date('2026-12-02T10:00:00Z'); // Wednesday: Thursday's KES is 4 business days old
    expect((await svc.services.rates.refresh('ecb')).error).toMatch(/^HTTP 503/);
  } finally {
    ecb.mode = 'up';
  }
  const w = await watch();
  const kes = w.pairs.find((p: { quote: string }) => p.quote === 'KES');
  expect(kes).toEqual({
    base: 'EUR',
    quote: 'KES',
    rate: 140.5,
    source: 'ecb',
    as_of: '2026-11-26T00:00:00Z',
    updated_at: '2026-11-27T10:00:00Z',
    age_seconds: 6 * 86_400 + 10 * 3600,
    stale: true,
    held_jump: {
      base: 'EUR',
      quote: 'KES',
      rate: 162.4,
      source: 'ecb',
      as_of: '2026-11-30T00:00:00Z',
      previous_rate: 140.5,
      previous_source: 'ecb',
      previous_as_of: '2026-11-26T00:00:00Z',
      move_percent: 15.59,
      held_at: '2026-11-30T17:00:00Z',
      decision: null,
      decided_by: null,
      decided_at: null,
    },
  });
  expect(w.pairs.find((p: { quote: string }) => p.quote === 'UGX')).toMatchObject({ rate: 4101, as_of: '2026-11-30T00:00:00Z', age_seconds: 2 * 86_400 + 10 * 3600, stale: false, held_jump: null });
  expect(w.feeds).toEqual([
    { name: 'ecb', configured: true, last_attempt_at: '2026-12-02T10:00:00Z', last_success_at: '2026-11-30T17:00:00Z', last_as_of: '2026-11-30T00:00:00Z', last_error: expect.stringMatching(/^HTTP 503/) },
    { name: 'frankfurter', configured: false, last_attempt_at: null, last_success_at: null, last_as_of: null, last_error: null },
  ]);
  // the held jump is never used silently: the stale rate it kept is refused
  const refused = await pay('KES', 1000);
  expect([refused.status, refused.body.code]).toEqual([503, 'RATE_UNAVAILABLE']);
});

it("refuses an unknown pair, a pair with no held jump, another rate, bad input, operator support and a merchant's owner, changing nothing", async () => {
  const support = await signedIn(svc, await createUser(svc, { role: 'operator_support', totp: true }), testClock);
  const { session } = await operatorAdmin();
  const owner = await signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: m.businessId }), testClock);
  const stateOf = async () => {
    const { user_sessions: _sessions, ...rest } = await databaseState(svc.services.db);
    return rest;
  };
  const state = await stateOf();
  const decide = (pair: string, what: string, body: unknown) => session.post(`/v1/admin/fx-rates/${pair}/held-jump/${what}`, body);

  const unknown = await decide('EUR/GBP', 'accept', { rate: 0.84 });
  expect([unknown.status, unknown.body.code, unknown.body.message]).toEqual([404, 'NOT_FOUND', 'There is no market rate for EUR/GBP']);
  const noJump = await decide('EUR/USD', 'refuse', { rate: 1.09 });
  expect([noJump.status, noJump.body.code]).toEqual([400, 'INVALID_STATE']);
  expect(noJump.body.message).toMatch(/^No jump of EUR\/USD waits for a decision/);
  const other = await decide('EUR/KES', 'accept', { rate: 170 });
  expect([other.status, other.body.code, other.body.message]).toEqual([400, 'INVALID_STATE', 'The jump held for EUR/KES is 162.4, not 170: look at it again before deciding']);
  expect(errorFields(await decide('EUR/kes', 'accept', { rate: 162.4 }))).toContain('quote');
  expect(errorFields(await decide('EUR/KES', 'accept', {}))).toContain('rate');
  expect(errorFields(await decide('EUR/KES', 'refuse', { rate: 162.4, note: 'x' }))).not.toEqual([]);
  const forbidden = await support.post('/v1/admin/fx-rates/EUR/KES/held-jump/accept', { rate: 162.4 });
  expect([forbidden.status, forbidden.body.code]).toEqual([403, 'FORBIDDEN']);
  const watching = await support.get('/v1/admin/fx-rates/watch');
  expect(watching.status).toBe(200);
  // the feeds and the held jumps are the operator's: a merchant's owner neither reads nor decides them
  expect((await owner.get('/v1/admin/fx-rates/watch')).body.code).toBe('FORBIDDEN');
  expect((await owner.post('/v1/admin/fx-rates/EUR/KES/held-jump/accept', { rate: 162.4 })).body.code).toBe('FORBIDDEN');

  expect(await stateOf()).toEqual(state);
});

it('uses a held rate only once an operator admin accepts it, and decides once when two decide at the same time', async () => {
  const { session, email } = await operatorAdmin();
  const answers = await Promise.all([
    session.post('/v1/admin/fx-rates/EUR/KES/held-jump/accept', { rate: 162.4 }),
    session.post('/v1/admin/fx-rates/EUR/KES/held-jump/refuse', { rate: 162.4 }),
  ]);
  const taken = answers.filter((a) => a.status === 200);
  const lost = answers.filter((a) => a.status !== 200);
  expect(taken).toHaveLength(1);
  expect([lost[0].status, lost[0].body.code]).toEqual([400, 'INVALID_STATE']);
  const decision = taken[0].body.data.decision;
  expect(taken[0].body.data).toMatchObject({ base: 'EUR', quote: 'KES', rate: 162.4, decided_by: email, decided_at: clock.toISOString().slice(0, 19) + 'Z' });
  const audit = await svc.services.db.any("SELECT action, actor_type, target_type, target_id FROM audit_log WHERE action LIKE '%FxRateJump' ORDER BY id");
  expect(audit).toEqual([{ action: decision === 'accepted' ? 'acceptFxRateJump' : 'refuseFxRateJump', actor_type: 'user', target_type: 'fx_rate', target_id: 'EUR/KES' }]);
  if (decision === 'refused') {
    // the refusal won the race: a second jump is held to prove acceptance below
    await svc.services.db.none(
      `INSERT INTO fx_rate_jumps (base, quote, rate, source, as_of, previous_rate, previous_source, previous_as_of, held_at)
       VALUES ('EUR', 'KES', 162.4, 'ecb', '2026-11-30T00:00:00Z', 140.5, 'ecb', '2026-11-26T00:00:00Z', $1)`,
      [clock],
    );
    expectOk(await session.post('/v1/admin/fx-rates/EUR/KES/held-jump/accept', { rate: 162.4 }));
  }
  expect(await inUse('KES')).toEqual({ rate: '162.400000000000', source: 'ecb', as_of: new Date('2026-11-30T00:00:00Z') });
  // 1000 KES x 4101 / 162.4, Monday's rates being current on Wednesday
  expect((await pay('KES', 1000)).body.data).toMatchObject({ account_currency: 'UGX', account_amount: 25252.46 });
  const again = await session.post('/v1/admin/fx-rates/EUR/KES/held-jump/accept', { rate: 162.4 });
  expect([again.status, again.body.code]).toEqual([400, 'INVALID_STATE']);
  expect((await watch()).pairs.find((p: { quote: string }) => p.quote === 'KES')).toMatchObject({ rate: 162.4, stale: false, held_jump: null });
});

it('keeps a refused jump unused and does not hold it again', async () => {
  clock = new Date('2026-12-02T17:00:00Z');
  ecb.day = { date: '2026-12-02', rates: { USD: '1.09', KES: '162.5', UGX: '4800' } };
  expect(await svc.services.rates.refresh('ecb')).toEqual({ feed: 'ecb', stored: 2, held: 1, error: null });
  const refused = expectOk(await svc.admin.post('/v1/admin/fx-rates/EUR/UGX/held-jump/refuse', { rate: 4800 }));
  expect(refused).toMatchObject({ rate: 4800, previous_rate: 4101, move_percent: 17.04, decision: 'refused', decided_by: 'operator key', decided_at: '2026-12-02T17:00:00Z' });
  expect(await inUse('UGX')).toEqual({ rate: '4101.000000000000', source: 'ecb', as_of: new Date('2026-11-30T00:00:00Z') });
  clock = new Date('2026-12-02T19:00:00Z');
  expect(await svc.services.rates.refresh('ecb')).toEqual({ feed: 'ecb', stored: 0, held: 0, error: null });
  expect((await jumpsOf('UGX')).map((j) => j.decision)).toEqual(['refused']);
  // 1000 KES x 4101 / 162.5: the refused UGX rate is not used
  expect((await pay('KES', 1000)).body.data).toMatchObject({ account_amount: 25236.92 });
});

it('closes a held jump when a newer day comes, using it when within the guard', async () => {
  clock = new Date('2026-12-03T17:00:00Z');
  ecb.day = { date: '2026-12-03', rates: { USD: '1.5' } };
  expect(await svc.services.rates.refresh('ecb')).toMatchObject({ stored: 0, held: 1 });
  clock = new Date('2026-12-04T17:00:00Z');
  ecb.day = { date: '2026-12-04', rates: { USD: '1.1' } };
  expect(await svc.services.rates.refresh('ecb')).toMatchObject({ stored: 1, held: 0 });
  expect((await jumpsOf('USD')).map((j) => [j.rate, j.decision, j.decided_by])).toEqual([['1.500000000000', 'superseded', null]]);
  expect(await inUse('USD')).toEqual({ rate: '1.100000000000', source: 'ecb', as_of: new Date('2026-12-04T00:00:00Z') });
  const late = await svc.admin.post('/v1/admin/fx-rates/EUR/USD/held-jump/accept', { rate: 1.5 });
  expect([late.status, late.body.code]).toEqual([400, 'INVALID_STATE']);
});

it("never holds the operator's own rate: it is the override", async () => {
  expectOk(await svc.admin.put('/v1/admin/fx-rates', { base: 'EUR', quote: 'USD', rate: 2 }));
  expect(await inUse('USD')).toMatchObject({ rate: '2.000000000000', source: 'operator' });
  expect(await jumpsOf('USD')).toHaveLength(1);
});
