// Proves the two hot paths keep their few database round trips (request-to-pay: one read, the routing turn, one write; a completion: one update and one write in its transaction) and still write every row, with values holding `$1`, quotes and `${}` kept verbatim.
import { pgp } from '../../src/db';
import type { Principal } from '../../src/http/context';
import { createBusiness, moneyServices } from '../helpers/money-fixtures';
import type { ServicesFixture } from '../helpers/money-fixtures';

let fx: ServicesFixture;
beforeAll(async () => {
  fx = await moneyServices();
});
afterAll(() => fx.close());

const s = () => fx.services;

/** Statements sent to the database while `run` runs (no workers run in this fixture). */
async function counted<T>(run: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const proto = pgp.pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const statements: string[] = [];
  proto.query = function (this: unknown, ...args: unknown[]) {
    const q = args[0] as string | { text: string };
    statements.push(typeof q === 'string' ? q : q.text);
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

it('requests a payment in three statements, replays in one, and writes the collection, its report and its start notice', async () => {
  const p = await merchant();
  const b = body();
  const first = await counted(() => s().collections.requestToPay(p, b));
  expect(first.statements.length).toBeLessThanOrEqual(3);
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
  expect(again.statements).toHaveLength(1);
  expect(again.result).toEqual({ row, replayed: true });
  await expect(s().collections.requestToPay(p, { ...b, amount: 2000 })).rejects.toMatchObject({ code: 'DUPLICATE_MERCHANT_REFERENCE' });
});

it('completes in one update and one write inside its transaction, then a repeat report changes nothing', async () => {
  const p = await merchant({ reservePercent: '10', reserveMonths: 1 });
  const warm = (await s().collections.requestToPay(p, body())).row;
  await s().collections.applyOutcome(warm.id, 'COMPLETED'); // creates the wallet's ledger accounts
  const { row } = await s().collections.requestToPay(p, body());

  const done = await counted(() => s().collections.applyOutcome(row.id, 'COMPLETED'));
  expect(done.statements.map((q) => q.trim().split(/\s+/)[0])).toEqual(['BEGIN', 'UPDATE', 'WITH', 'COMMIT']);
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
  expect(await s().collections.applyOutcome(row.id, 'COMPLETED')).toBeNull();
  expect(await s().collections.applyOutcome(row.id, 'FAILED')).toBeNull();
  expect(await counts()).toEqual(before);
});
