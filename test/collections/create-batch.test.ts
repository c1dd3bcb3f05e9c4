// Proves request-to-pay's group commit keeps every guarantee per request: requests sent at once while the
// write's lanes are busy share one statement, and in that one batch a new request is created, a replay of an
// earlier request answers that earlier row, a reused merchant_reference with another body fails alone with
// DUPLICATE_MERCHANT_REFERENCE, and two requests of the same batch holding one reference make one collection
// (the first; the second a replay of it, or a duplicate when its body differs). Each created collection has
// its own provider report and start email, nothing else is written, and a batch of one stays one request.
import { pgp } from '../../src/db';
import type { Principal } from '../../src/merchants/access-tokens';
import { createBusiness, moneyServices } from '../helpers/money-fixtures';
import type { ServicesFixture } from '../helpers/money-fixtures';
import { readArrayLiteral } from '../helpers/array-literal';

let fx: ServicesFixture;
beforeAll(async () => {
  fx = await moneyServices();
  // the configuration stays in memory (no poll), so every request reaches the write in the same turn
  fx.services.configCache.live(false, 2 ** 31 - 1);
});
afterAll(async () => {
  await fx.services.configCache.stop();
  await fx.close();
});

const s = () => fx.services;

/** The merchant references of each request-to-pay write sent while `run` runs, one array per statement. */
async function batchesSent<T>(run: () => Promise<T>): Promise<{ result: T; batches: string[][] }> {
  const proto = pgp.pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const batches: string[][] = [];
  proto.query = function (this: unknown, ...args: unknown[]) {
    const q = args[0] as string | { text: string; values?: unknown[] };
    // create.sql's fifth parameter is the batch's merchant references
    if (typeof q !== 'string' && q.text.includes('INSERT INTO collections') && q.text.startsWith('WITH input AS')) batches.push(readArrayLiteral(q.values![4] as string) as string[]);
    return original.apply(this, args);
  };
  try {
    return { result: await run(), batches };
  } finally {
    proto.query = original;
  }
}

async function merchant(): Promise<Principal> {
  const b = await createBusiness(s().db, { fees: [{ method: 'MOBILE_MONEY', percent: '2', fixedMinor: 100n }] });
  await s().db.none(
    `INSERT INTO mids (business_id, business_name, service_type, payment_method, currency) VALUES ($1, 'Shop', 'sandbox', 'MOBILE_MONEY', 'UGX')`,
    [b.businessId],
  );
  const token = await s().db.one<{ id: number }>(
    `INSERT INTO api_tokens (business_id, api_key, secret_hash, notification_email, webhook_url, webhook_hash_enc, email_merchant, email_user)
     VALUES ($1, $2, 'unused', 'merchant@example.org', 'http://127.0.0.1:9/webhook', 'unused', true, true) RETURNING id`,
    [b.businessId, `pk_sandbox_batch_${b.businessId}`],
  );
  return { businessId: b.businessId, apiTokenId: token.id };
}

const body = (ref: string, amount = 1000) => ({
  currency: 'UGX',
  amount,
  payment_method: 'MOBILE_MONEY' as const,
  account_number: '256777000001',
  merchant_reference: ref,
  narration: `Order ${ref}`,
  account_email: 'payer@example.org',
});

type Answer = { id: bigint; ref: string; replayed: boolean } | { code: string };

it('writes good, replayed, duplicate and same-batch requests in one statement, each answered as if alone', async () => {
  const p = await merchant();
  const earlier = (await s().collections.requestToPay(p, body('earlier'))).row;
  const countRows = () => s().db.one<{ n: number }>('SELECT count(*)::int AS n FROM collections WHERE business_id = $1', [p.businessId]);
  expect(await countRows()).toEqual({ n: 1 });

  // enough requests first to take every lane, so the mix behind them waits and goes as one batch
  const fillers = Array.from({ length: 12 }, (_, i) => body(`filler-${i}`));
  const mix = [
    body('good-1'),
    body('earlier'), // a replay of the earlier request: its row
    body('earlier', 2000), // the earlier reference with another body: refused alone
    body('twice'), // the same request twice in the batch: one collection, the second answer a replay of it
    body('twice'),
    body('clash'), // one reference, two bodies in the batch: the first created, the second refused
    body('clash', 3000),
    body('good-2'),
  ];
  const { result, batches } = await batchesSent(() =>
    Promise.all(
      [...fillers, ...mix].map((b) =>
        s().collections.requestToPay(p, b).then(
          (r): Answer => ({ id: r.row.id, ref: r.row.merchant_reference, replayed: r.replayed }),
          (e: { code?: string }): Answer => ({ code: e.code ?? String(e) }),
        ),
      ),
    ),
  );
  // the mix went in one statement (the premise of this test), with requests of other callers
  const mixRefs = mix.map((b) => b.merchant_reference);
  const shared = batches.find((refs) => mixRefs.every((r) => refs.includes(r)));
  expect(shared).toBeDefined();
  expect(shared!.length).toBeGreaterThan(mixRefs.length - 1);

  const answers = result.slice(fillers.length);
  const created = (ref: string) => expect.objectContaining({ ref, replayed: false });
  expect(answers).toEqual([
    created('good-1'),
    { id: earlier.id, ref: 'earlier', replayed: true },
    { code: 'DUPLICATE_MERCHANT_REFERENCE' },
    created('twice'),
    { id: (answers[3] as { id: bigint }).id, ref: 'twice', replayed: true },
    created('clash'),
    { code: 'DUPLICATE_MERCHANT_REFERENCE' },
    created('good-2'),
  ]);
  for (const a of result.slice(0, fillers.length)) expect(a).toMatchObject({ replayed: false });

  // one collection per reference, the first body's; each created one with its own report and start email
  expect(await countRows()).toEqual({ n: 1 + fillers.length + 4 });
  const clash = await s().db.one<{ request_amount_minor: bigint }>('SELECT request_amount_minor FROM collections WHERE business_id = $1 AND merchant_reference = $2', [p.businessId, 'clash']);
  expect(clash.request_amount_minor).toBe(100000n);
  const perCollection = await s().db.any<{ merchant_reference: string; reports: number; emails: number; mentions: boolean }>(
    `SELECT c.merchant_reference,
       (SELECT count(*)::int FROM provider_events e WHERE e.collection_id = c.id) AS reports,
       (SELECT count(*)::int FROM emails m WHERE m.collection_id = c.id AND m.kind = 'start') AS emails,
       (SELECT bool_and(m.text_body LIKE '%' || c.merchant_reference || '%') FROM emails m WHERE m.collection_id = c.id) AS mentions
     FROM collections c WHERE c.business_id = $1 ORDER BY c.merchant_reference`,
    [p.businessId],
  );
  expect(perCollection).toHaveLength(1 + fillers.length + 4);
  for (const c of perCollection) expect(c).toMatchObject({ reports: 1, emails: 1, mentions: true });
});

it('writes a request alone at once as a batch of one, and a replay of it alone answers its row', async () => {
  const p = await merchant();
  const first = await batchesSent(() => s().collections.requestToPay(p, body('alone')));
  expect(first.batches).toEqual([['alone']]);
  const again = await batchesSent(() => s().collections.requestToPay(p, body('alone')));
  expect(again.batches).toEqual([['alone']]);
  expect(again.result).toEqual({ row: first.result.row, replayed: true });
});
