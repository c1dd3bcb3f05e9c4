// The floor of `npm run bench`: a bare node:http server that reads the request-to-pay JSON body and does
// the one INSERT into collections that the service's request-to-pay does, through the same pg-promise
// pool, and nothing else (no routing, validation, auth, pricing, idempotency or outbox). What the service
// costs beyond this is what the framework and our logic cost.
// Env: PORT, DATABASE_URL (or DATA_DIR for the embedded database), DATABASE_POOL_MAX, FLOOR_BUSINESS_ID, FLOOR_TOKEN_ID, FLOOR_MID_ID.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { openDatabase } from '../../src/db';
import { toMinor } from '../../src/domain/money';

const INSERT = `INSERT INTO collections (business_id, api_token_id, gateway_reference, merchant_reference, request_hash,
    payment_method, status, message, request_amount_minor, request_currency, account_amount_minor, account_currency,
    fee_minor, total_credit_minor, customer_charged, account_number, narration, mid_id, page_token, expires_at)
  VALUES ($1, $2, $3, $4, '-', $5, 'PENDING', 'Pending', $6, $7, $6, $7, 0, $6, false, $8, $9, $10, $11, now() + interval '30 minutes')
  RETURNING id, gateway_reference, status`;

async function main() {
  const env = process.env;
  const database = await openDatabase(env.DATABASE_URL || null, path.resolve(env.DATA_DIR || './data'), Number(env.DATABASE_POOL_MAX) || 10);
  const ids = [Number(env.FLOOR_BUSINESS_ID), Number(env.FLOOR_TOKEN_ID), Number(env.FLOOR_MID_ID)];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      let b: { amount: number; currency: string; payment_method: string; account_number?: string; merchant_reference: string; narration: string };
      let amountMinor: bigint;
      try {
        b = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        amountMinor = toMinor(b.amount);
      } catch {
        answer(400, { status: 'error' });
        return;
      }
      const values = [ids[0], ids[1], 'PC' + randomBytes(15).toString('hex'), b.merchant_reference, b.payment_method,
        amountMinor, b.currency, b.account_number ?? null, b.narration, ids[2], randomBytes(18).toString('base64url')];
      database.db.one(INSERT, values).then(
        (row: { id: bigint }) => answer(201, { status: 'success', data: { ...row, id: row.id.toString() } }),
        (err: Error) => answer(500, { status: 'error', message: err.message }),
      );
    });
  });
  server.listen(Number(env.PORT), '127.0.0.1');
  const stop = () => server.close(() => database.close().then(() => process.exit(0)));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((e) => {
  process.stderr.write(`floor: ${(e as Error).stack}\n`);
  process.exit(1);
});
