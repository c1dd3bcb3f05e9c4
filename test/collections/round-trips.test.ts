// Proves the two hot paths keep their few database round trips (request-to-pay: one write once the configuration is in memory, one read more when it is not, a routing turn per block of turns; a completion: one read and one guarded write, no transaction) and still write every row (the request-to-pay write one constant text, prepared by name on a real server), with values holding `$1`, quotes and `${}` kept verbatim; and that a completion racing another move of the same collection writes once.
import { pgp } from '../../src/db';
import type { FinalStatus } from '../../src/domain/collection';
import type { Principal } from '../../src/merchants/access-tokens';
import { StateChanges } from '../../src/collections/state-change';
import { REAL_PG_URL } from '../helpers/db';
import { createBusiness, moneyServices } from '../helpers/money-fixtures';
import type { ServicesFixture } from '../helpers/money-fixtures';
import { readArrayLiteral } from '../helpers/array-literal';

let fx: ServicesFixture;
beforeAll(async () => {
  fx = await moneyServices();
  // kept in memory as a running service keeps it; no listener and no version poll here (a poll would be
  // counted among a request's statements), so every change is a missed notice
  fx.services.configCache.live(false, 2 ** 31 - 1);
});
afterAll(async () => {
  await fx.services.configCache.stop();
  await fx.close();
});

const s = () => fx.services;

/** Statements sent to the database while `run` runs (no workers run in this fixture). */
/** Statements sent as query objects (text, prepared name, values) during the last counted(). */
let sent: { text: string; name?: string; values: unknown[] }[] = [];

async function counted<T>(run: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const proto = pgp.pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const statements: string[] = [];
  sent = [];
  proto.query = function (this: unknown, ...args: unknown[]) {
    const q = args[0] as string | { text: string; name?: string; values?: unknown[] };
    statements.push(typeof q === 'string' ? q : q.text);
    if (typeof q !== 'string') sent.push({ text: q.text, name: q.name, values: q.values ?? [] });
    return original.apply(this, args);
  };
  try {
    return { result: await run(), statements };
  } finally {
    proto.query = original;
  }
}

async function merchant(o: { reservePercent?: string; reserveMonths?: number } = {}): Promise<Principal> {
  const b = await createBusiness(s().db, { ...o, fees: [{ method: 'MOBILE_MONEY', percent: '2', fixedMinor: 100n }] });
  await s().db.none(
    `INSERT INTO mids (business_id, business_name, service_type, payment_method, currency) VALUES ($1, 'Shop', 'sandbox', 'MOBILE_MONEY', 'UGX')`,
    [b.businessId],
  );
  const token = await s().db.one<{ id: number }>(
    `INSERT INTO api_tokens (business_id, api_key, secret_hash, notification_email, webhook_url, webhook_hash_enc, email_merchant, email_user)
     VALUES ($1, $2, 'unused', 'merchant@example.org', 'http://127.0.0.1:9/webhook', 'unused', true, true) RETURNING id`,
    [b.businessId, `pk_sandbox_rt_${b.businessId}`],
  );
  return { businessId: b.businessId, apiTokenId: token.id };
}

let refs = 0;
function body(overrides: Record<string, unknown> = {}) {
  refs += 1;
  return {
    currency: 'UGX',
    amount: 1000,
    payment_method: 'MOBILE_MONEY' as const,
    account_number: '256777000001',
    merchant_reference: `rt-${refs}-$1-'q'-\${x}`,
    narration: "Order $1 $2 'quoted' ${y} \\ end",
    account_name: "O'Brien $1",
    account_email: 'payer@example.org',
    ...overrides,
  };
}

it('requests a payment in one statement once its configuration is in memory, replays in one, and writes the collection, its report and its start notice', async () => {
  const p = await merchant();
  const b = body();
  const first = await counted(() => s().collections.requestToPay(p, b));
  // the configuration read (token, pricing, MIDs) and the write, both constant texts prepared on a real server
  expect(first.statements.map(verb)).toEqual(['SELECT', 'WITH']);
  expect(sent.map((q) => q.name)).toEqual(REAL_PG_URL ? ['merchants/request-config.sql', 'collections/create.sql'] : [undefined, undefined]);
  const row = first.result.row;
  expect(first.result.replayed).toBe(false);
  expect(row).toMatchObject({ merchant_reference: b.merchant_reference, narration: b.narration, account_name: b.account_name, status: 'PENDING' });
  expect(row).toMatchObject({ account_amount_minor: 100000n, fee_minor: 2100n, total_credit_minor: 97900n, notification_seq: 0 });

  const events = await s().db.any('SELECT outcome FROM provider_events WHERE collection_id = $1', [row.id]);
  expect(events).toEqual([{ outcome: 'COMPLETED' }]);
  const emails = await s().db.any<{ kind: string; text_body: string }>('SELECT kind, text_body FROM emails WHERE collection_id = $1', [row.id]);
  expect(emails.map((e) => e.kind)).toEqual(['start']);
  expect(emails[0].text_body).toContain(`Merchant reference: ${b.merchant_reference}`);

  const again = await counted(() => s().collections.requestToPay(p, b));
  expect(again.statements.map(verb)).toEqual(['WITH']);
  expect(again.result).toEqual({ row, replayed: true });
  await expect(s().collections.requestToPay(p, { ...b, amount: 2000 })).rejects.toMatchObject({ code: 'DUPLICATE_MERCHANT_REFERENCE' });

  const next = await counted(() => s().collections.requestToPay(p, body()));
  expect(next.statements.map(verb)).toEqual(['WITH']);
  expect(next.result.replayed).toBe(false);
});

it('sends the request-to-pay write as one constant text with its values apart: prepared by name on a real server, unnamed on the embedded one', async () => {
  const p = await merchant();
  await s().collections.requestToPay(p, body());
  const writes = [];
  for (const b of [body(), body({ account_email: undefined, narration: 'other' })]) {
    await counted(() => s().collections.requestToPay(p, b));
    expect(sent).toHaveLength(1);
    writes.push(sent[0]);
    // a batch of one: each value is the one element of its parameter's array literal
    expect(sent[0].values.flatMap((v) => readArrayLiteral(v as string))).toContain(b.merchant_reference);
    expect(sent[0].text).not.toContain(b.merchant_reference);
  }
  expect(writes[1].text).toBe(writes[0].text);
  expect(writes.map((w) => w.name)).toEqual(REAL_PG_URL ? ['collections/create.sql', 'collections/create.sql'] : [undefined, undefined]);
});

it('moves a collection with one constant read and one constant write whatever it writes, its values apart: prepared by name on a real server', async () => {
  const p = await merchant({ reservePercent: '10', reserveMonths: 1 });
  await s().collections.applyOutcome((await s().collections.requestToPay(p, body())).row.id, 'COMPLETED'); // creates the wallet's ledger accounts
  const moves: { text: string; name?: string; values: unknown[] }[][] = [];
  // a completion with a hold, one without a credit, and one whose API token is gone (no notification, no emails)
  for (const [outcome, o] of [['COMPLETED', {}], ['FAILED', {}], ['COMPLETED', { gone: true }]] as const) {
    const { row } = await s().collections.requestToPay(p, body());
    if ('gone' in o) await s().db.none('UPDATE collections SET api_token_id = NULL WHERE id = $1', [row.id]);
    await counted(() => s().collections.applyOutcome(row.id, outcome));
    expect(sent).toHaveLength(2);
    // a batch of one: its id the one element of the read's ids and of the write's ids
    expect(sent[0].values[0]).toEqual([row.id]);
    expect(sent[1].values[0]).toEqual([row.id]);
    moves.push(sent);
  }
  for (const m of moves.slice(1)) expect(m.map((q) => q.text)).toEqual(moves[0].map((q) => q.text));
  const names = REAL_PG_URL ? ['collections/read-for-move.sql', 'collections/move.sql'] : [undefined, undefined];
  for (const m of moves) expect(m.map((q) => q.name)).toEqual(names);
});

it('takes routing turns a block at a time: one statement per request between blocks, the MIDs alternating', async () => {
  const p = await merchant();
  await s().db.none(
    `INSERT INTO mids (business_id, business_name, service_type, payment_method, currency) VALUES ($1, 'Shop', 'sandbox', 'MOBILE_MONEY', 'UGX')`,
    [p.businessId],
  );
  const first = await counted(() => s().collections.requestToPay(p, body()));
  // the configuration read, the first block of turns, the write
  expect(first.statements.map(verb)).toEqual(['SELECT', 'SET', 'WITH']);
  const mids = [first.result.row.mid_id];
  for (let i = 0; i < 5; i += 1) {
    const next = await counted(() => s().collections.requestToPay(p, body()));
    expect(next.statements.map(verb)).toEqual(['WITH']);
    mids.push(next.result.row.mid_id);
  }
  expect(new Set(mids).size).toBe(2);
  mids.forEach((m, i) => i > 0 && expect(m).not.toBe(mids[i - 1]));
});

it('catches a missed notice with the version guard: a fee changed behind its back prices the next request', async () => {
  const p = await merchant();
  expect((await s().collections.requestToPay(p, body())).row.fee_minor).toBe(2100n);
  // a change this process hears nothing of (no NOTIFY reaches it, no invalidation)
  await s().db.none("UPDATE business_fees SET percent = 5 WHERE business_id = $1 AND payment_method = 'MOBILE_MONEY'", [p.businessId]);
  const after = await counted(() => s().collections.requestToPay(p, body()));
  // the guarded write found the version moved and wrote nothing; read again, written again
  expect(after.statements.map(verb)).toEqual(['WITH', 'SELECT', 'WITH']);
  expect(after.result.row.fee_minor).toBe(5100n);
});

it('refuses a request-to-pay of a regenerated API token at once, whatever the process kept', async () => {
  const p = await merchant();
  const { generation } = await s().db.one<{ generation: number }>('SELECT generation FROM api_tokens WHERE id = $1', [p.apiTokenId]);
  const caller = { ...p, generation };
  await s().collections.requestToPay(caller, body());
  await s().db.none('UPDATE api_tokens SET generation = generation + 1 WHERE id = $1', [p.apiTokenId]);
  const count = () => s().db.one<{ n: number }>('SELECT count(*)::int AS n FROM collections WHERE api_token_id = $1', [p.apiTokenId]);
  const before = await count();
  await expect(s().collections.requestToPay(caller, body())).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  expect(await count()).toEqual(before);
});

it('completes in one read and one guarded write without a transaction, then a repeat report changes nothing', async () => {
  const p = await merchant({ reservePercent: '10', reserveMonths: 1 });
  const warm = (await s().collections.requestToPay(p, body())).row;
  await s().collections.applyOutcome(warm.id, 'COMPLETED'); // creates the wallet's ledger accounts
  const { row } = await s().collections.requestToPay(p, body());

  const done = await counted(() => s().collections.applyOutcome(row.id, 'COMPLETED'));
  expect(done.statements.map(verb)).toEqual(['SELECT', 'WITH']);
  // the row as the state change left it; the notification took the collection's next sequence
  expect(done.result).toMatchObject({ status: 'COMPLETED', notification_seq: 0 });
  expect(await s().db.one('SELECT notification_seq FROM collections WHERE id = $1', [row.id])).toEqual({ notification_seq: 1 });

  const n = await s().db.one<{ sequence: number; body: string }>('SELECT sequence, body FROM notifications WHERE collection_id = $1', [row.id]);
  expect(n.sequence).toBe(1);
  expect(JSON.parse(n.body)).toMatchObject({ merchant_reference: row.merchant_reference, transaction_status: 'COMPLETED', sequence: 1 });
  const emails = await s().db.any('SELECT kind, recipient FROM emails WHERE collection_id = $1 ORDER BY id', [row.id]);
  expect(emails).toEqual([
    { kind: 'start', recipient: 'merchant@example.org' },
    { kind: 'summary', recipient: 'merchant@example.org' },
    { kind: 'receipt', recipient: 'payer@example.org' },
  ]);
  const postings = await s().db.any(
    `SELECT a.kind AS account, p.amount_minor FROM postings p JOIN journals j ON j.id = p.journal_id
     JOIN ledger_accounts a ON a.id = p.account_id WHERE j.collection_id = $1 ORDER BY p.id`,
    [row.id],
  );
  expect(postings).toEqual([
    { account: 'processor_clearing', amount_minor: -100000n },
    { account: 'fee_revenue', amount_minor: 2100n },
    { account: 'reserved', amount_minor: 9790n },
    { account: 'available', amount_minor: 88110n },
  ]);
  const holds = await s().db.any('SELECT h.bucket, h.amount_minor FROM ledger_holds h JOIN journals j ON j.id = h.journal_id WHERE j.collection_id = $1', [
    row.id,
  ]);
  expect(holds).toEqual([{ bucket: 'reserved', amount_minor: 9790n }]);
  // the first run of a scenario is the one kept
  expect(await s().db.any('SELECT scenario, gateway_reference FROM certification_events WHERE business_id = $1', [p.businessId])).toEqual([
    { scenario: 'MOBILE_MONEY_SUCCESS', gateway_reference: warm.gateway_reference },
  ]);

  const counts = () =>
    s().db.one(`SELECT (SELECT count(*)::int FROM postings) AS p, (SELECT count(*)::int FROM notifications) AS n, (SELECT count(*)::int FROM emails) AS e`);
  const before = await counts();
  const repeat = await counted(() => s().collections.applyOutcome(row.id, 'COMPLETED'));
  expect(repeat.result).toBeNull();
  expect(repeat.statements.map(verb)).toEqual(['SELECT']);
  expect(await s().collections.applyOutcome(row.id, 'FAILED')).toBeNull();
  expect(await counts()).toEqual(before);
});

const verb = (q: string) => q.trim().split(/\s+/)[0];

/** What one collection's moves wrote: journals, notifications (with sequence and status), emails by kind. */
async function written(id: bigint) {
  return s().db.one<{ status: string; seq: number; journals: number; notifications: { sequence: number; status: string }[] | null; emails: string[] | null }>(
    `SELECT c.status, c.notification_seq AS seq,
       (SELECT count(*)::int FROM journals j WHERE j.collection_id = c.id) AS journals,
       (SELECT json_agg(json_build_object('sequence', n.sequence, 'status', n.transaction_status) ORDER BY n.id) FROM notifications n WHERE n.collection_id = c.id) AS notifications,
       (SELECT array_agg(e.kind ORDER BY e.id) FROM emails e WHERE e.collection_id = c.id) AS emails
     FROM collections c WHERE c.id = $1`,
    [id],
  );
}

it('lets exactly one of two concurrent moves of one collection win: one credit journal, one notification', async () => {
  const p = await merchant({ reservePercent: '10', reserveMonths: 1 });
  await s().collections.applyOutcome((await s().collections.requestToPay(p, body())).row.id, 'COMPLETED');
  const pairs: [FinalStatus, FinalStatus][] = [
    ['COMPLETED', 'COMPLETED'],
    ['COMPLETED', 'FAILED'],
    ['FAILED', 'COMPLETED'],
    ['COMPLETED', 'CANCELLED'],
  ];
  for (const [a, b] of pairs) {
    const { row } = await s().collections.requestToPay(p, body());
    const results = await Promise.all([s().collections.applyOutcome(row.id, a), s().collections.applyOutcome(row.id, b)]);
    const winners = results.filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    const won = winners[0]!;
    expect(won).toMatchObject({ id: row.id, notification_seq: 0 });
    const w = await written(row.id);
    expect(w).toEqual({
      status: won.status,
      seq: 1,
      journals: won.status === 'COMPLETED' ? 1 : 0,
      notifications: [{ sequence: 1, status: won.status }],
      emails: ['start', 'summary', 'receipt'],
    });
  }
});

/**
 * Runs `between` once, right after the next move has read its row and before it writes. A move `between`
 * makes goes through the caller's-transaction path (`move` on the pool): the batch waiting on it holds the
 * write's only lane on the embedded database.
 */
async function afterNextRead<T>(between: () => Promise<unknown>, run: () => Promise<T>): Promise<T> {
  const proto = StateChanges.prototype as unknown as { readForMoves: (...args: unknown[]) => Promise<unknown> };
  const original = proto.readForMoves;
  let pending = true;
  proto.readForMoves = async function (this: unknown, ...args: unknown[]) {
    const read = await original.apply(this, args);
    if (pending) {
      pending = false;
      await between();
    }
    return read;
  };
  try {
    return await run();
  } finally {
    proto.readForMoves = original;
  }
}

it('writes nothing and returns null when another move lands between its read and its write', async () => {
  const p = await merchant();
  await s().collections.applyOutcome((await s().collections.requestToPay(p, body())).row.id, 'COMPLETED');
  const { row } = await s().collections.requestToPay(p, body());
  let other: unknown;
  const late = await afterNextRead(
    async () => {
      other = await s().collections.move(s().db, row.id, 'FAILED');
    },
    () => s().collections.applyOutcome(row.id, 'COMPLETED'),
  );
  expect(other).toMatchObject({ status: 'FAILED', notification_seq: 0 });
  expect(late).toBeNull();
  expect(await written(row.id)).toEqual({
    status: 'FAILED',
    seq: 1,
    journals: 0,
    notifications: [{ sequence: 1, status: 'FAILED' }],
    emails: ['start', 'summary', 'receipt'],
  });
});

it('lets no late COMPLETED overwrite a FAILED collection whose API token is gone (no sequence to guard it)', async () => {
  const p = await merchant();
  const { row } = await s().collections.requestToPay(p, body());
  // ON DELETE SET NULL: the collection keeps no token, so its notification_seq never moves.
  await s().db.none('DELETE FROM api_tokens WHERE id = $1', [p.apiTokenId]);
  let other: unknown;
  const late = await afterNextRead(
    async () => {
      other = await s().collections.move(s().db, row.id, 'FAILED');
    },
    () => s().collections.applyOutcome(row.id, 'COMPLETED'),
  );
  expect(other).toMatchObject({ status: 'FAILED', api_token_id: null });
  expect(late).toBeNull();
  expect(await written(row.id)).toEqual({ status: 'FAILED', seq: 0, journals: 0, notifications: null, emails: ['start'] });
});

it('reads again and moves once when the sequence or the API token changed after its read', async () => {
  const p = await merchant({ reservePercent: '10', reserveMonths: 1 });
  await s().collections.applyOutcome((await s().collections.requestToPay(p, body())).row.id, 'COMPLETED');

  // the sequence moved (still PENDING): the guarded write moves nothing; read again, the next write takes the next one
  const { row } = await s().collections.requestToPay(p, body());
  const bumped = await counted(() =>
    afterNextRead(
      () => s().db.none('UPDATE collections SET notification_seq = notification_seq + 1 WHERE id = $1', [row.id]),
      () => s().collections.applyOutcome(row.id, 'COMPLETED'),
    ),
  );
  expect(bumped.statements.map(verb)).toEqual(['SELECT', 'UPDATE', 'WITH', 'SELECT', 'WITH']);
  expect(bumped.result).toMatchObject({ status: 'COMPLETED', notification_seq: 1 });
  expect(await written(row.id)).toEqual({
    status: 'COMPLETED',
    seq: 2,
    journals: 1,
    notifications: [{ sequence: 2, status: 'COMPLETED' }],
    emails: ['start', 'summary', 'receipt'],
  });
  const n = await s().db.one<{ body: string }>('SELECT body FROM notifications WHERE collection_id = $1', [row.id]);
  expect(JSON.parse(n.body)).toMatchObject({ transaction_status: 'COMPLETED', sequence: 2 });

  // the API token went (its collections keep no token): no notification, no emails to its address
  const gone = (await s().collections.requestToPay(p, body())).row;
  const moved = await afterNextRead(
    () => s().db.none('DELETE FROM api_tokens WHERE id = $1', [p.apiTokenId]),
    () => s().collections.applyOutcome(gone.id, 'COMPLETED'),
  );
  expect(moved).toMatchObject({ status: 'COMPLETED', api_token_id: null, notification_seq: 0 });
  expect(await written(gone.id)).toEqual({ status: 'COMPLETED', seq: 0, journals: 1, notifications: null, emails: ['start'] });
});

it("applies a claim of provider reports in one read and one write: each collection's first report moves it, the later ones change nothing", async () => {
  const p = await merchant();
  const rows = [];
  for (let i = 0; i < 3; i++) rows.push((await s().collections.requestToPay(p, body())).row);
  const [a, b, c] = rows;
  const ids = rows.map((r) => r.id);
  await s().db.none('DELETE FROM provider_events WHERE collection_id = ANY($1::bigint[])', [ids]);
  // in due order: a fails, b completes then (too late) fails, c completes
  const due = (seconds: number) => new Date(s().now().getTime() - seconds * 1000);
  for (const [id, outcome, at] of [[a.id, 'FAILED', 40], [b.id, 'COMPLETED', 30], [b.id, 'FAILED', 20], [c.id, 'COMPLETED', 10]] as const) {
    await s().db.none('INSERT INTO provider_events (collection_id, outcome, message, due_at) VALUES ($1, $2, $3, $4)', [id, outcome, `report ${outcome}`, due(at)]);
  }

  const run = await counted(() => s().collections.processProviderEvents());
  expect(run.result).toBe(4);
  // the three collections read together and moved together (not a read and a write per report)
  expect(run.statements.filter((q) => /^\s*SELECT c\.\*, i\.n AS n_/.test(q))).toHaveLength(1);
  expect(run.statements.filter((q) => /^\s*WITH input AS\b/.test(q))).toHaveLength(1);
  expect(await s().db.any('SELECT id, status, message FROM collections WHERE id = ANY($1::bigint[]) ORDER BY id', [ids])).toEqual([
    { id: a.id, status: 'FAILED', message: 'report FAILED' },
    { id: b.id, status: 'COMPLETED', message: 'report COMPLETED' },
    { id: c.id, status: 'COMPLETED', message: 'report COMPLETED' },
  ]);
  expect((await s().db.one('SELECT count(*)::int AS n FROM journals WHERE collection_id = ANY($1::bigint[])', [ids])).n).toBe(2);
  for (const r of rows) expect((await written(r.id)).notifications).toHaveLength(1);
  expect(await s().db.any('SELECT id FROM provider_events WHERE collection_id = ANY($1::bigint[]) AND processed_at IS NULL', [ids])).toEqual([]);
  // nothing left to apply: a second run claims nothing and changes nothing
  expect(await s().collections.processProviderEvents()).toBe(0);
});
