// Proves the reading of a BTCPay store's settled invoices for reconciliation, against the fake BTCPay Server
// over real sockets: a UTC day is read once it is two days past (not before), as one statement of the crypto
// MID covering the whole day: the invoices created that day and Settled, each set against our payment by the invoice id; an invoice
// the store was paid on that we never made is ours_missing, an invoice whose price differs from what we asked
// is amount_over, an invoice not settled is no line; a second pull asks for nothing new and creates nothing.
import { ledgerDrift } from '../../src/ledger/ledger';
import { settledCryptoPayment, startHostedWorld } from '../helpers/hosted';
import type { HostedWorld } from '../helpers/hosted';
import { expectOk } from '../helpers/merchants';

let w: HostedWorld;

beforeAll(async () => {
  w = await startHostedWorld({ PROCESSOR_CHECK_SCHEDULE: '10m' });
}, 180_000);

afterAll(() => w?.close());

const db = () => w.svc.services.db;
const pull = () => w.svc.services.reconciliation.settlements.pull();
const DAY_S = 86_400;
/** Three days ago, 10:00 UTC, in Unix seconds: a day the pull reads. */
const threeDaysAgo = Math.floor(Date.now() / 1000 / DAY_S) * DAY_S - 3 * DAY_S + 10 * 3600;

/** A USD 12.50 crypto payment BTCPay settles: its invoice id. */
const paid = async () => (await settledCryptoPayment(w)).invoiceId;

/** An invoice made at the store by someone else (not through us), paid and settled. */
async function theirs(amount: string): Promise<string> {
  const res = await fetch(`${w.btcpay.url}/api/v1/stores/${w.btcpay.storeId}/invoices`, {
    method: 'POST', headers: { authorization: `token ${w.btcpay.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ amount, currency: 'USD' }),
  });
  const { id } = (await res.json()) as { id: string };
  w.btcpay.pay(id, Math.round(Number(amount) * 100));
  w.btcpay.confirm(id);
  return id;
}

async function itemsOf(midId: number): Promise<Record<string, string[]>> {
  const res = expectOk(await w.svc.admin.get(`/v1/admin/mids/${midId}/reconciliation-items?limit=500`));
  const out: Record<string, string[]> = {};
  for (const i of res.items as { state: string; reference: string }[]) (out[i.state] ??= []).push(i.reference);
  for (const k of Object.keys(out)) out[k].sort();
  return out;
}

const invoiceCalls = () => w.btcpay.calls.filter((c) => c.method === 'GET' && c.path.includes('/invoices?status=Settled')).length;

/** The crypto MID's day statements: date -> line count. */
async function days(): Promise<Map<string, number>> {
  const rows = await db().any<{ first_at: Date; line_count: number }>("SELECT first_at, line_count FROM reconciliation_statements WHERE mid_id = $1 AND source = 'btcpay_invoices'", [w.mids.crypto]);
  return new Map(rows.map((r) => [r.first_at.toISOString().slice(0, 10), r.line_count]));
}

it('reads each day of settled invoices once it is two days past, finds each difference, and reads it once', async () => {
  const [a, over, today] = [await paid(), await paid(), await paid()];
  const stranger = await theirs('20.00');
  const unpaid = (await (await fetch(`${w.btcpay.url}/api/v1/stores/${w.btcpay.storeId}/invoices`, {
    method: 'POST', headers: { authorization: `token ${w.btcpay.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ amount: '5.00', currency: 'USD' }),
  })).json() as { id: string }).id;
  for (const id of [a, over, stranger, unpaid]) w.btcpay.invoice(id)!.createdTime = threeDaysAgo;
  w.btcpay.invoice(over)!.amountCents = 1300;

  await pull();
  // one statement per day of the look-back up to two days ago, each covering its whole day; today's is not read yet
  const read = await days();
  const day = new Date(threeDaysAgo * 1000).toISOString().slice(0, 10);
  const todays = new Date().toISOString().slice(0, 10);
  expect(read.get(day)).toBe(3);
  expect(read.has(todays)).toBe(false);
  expect([...read.entries()].filter(([d]) => d !== day).every(([, n]) => n === 0)).toBe(true);
  expect(read.size).toBeGreaterThanOrEqual(12);
  const statement = await db().one<{ first_at: Date; last_at: Date }>("SELECT first_at, last_at FROM reconciliation_statements WHERE mid_id = $1 AND line_count = 3", [w.mids.crypto]);
  expect([statement.first_at.toISOString(), statement.last_at.toISOString()]).toEqual([`${day}T00:00:00.000Z`, `${day}T23:59:59.999Z`]);
  // the day's invoices set against ours: today's payment is in no statement, the unpaid invoice is no line
  expect(await itemsOf(w.mids.crypto)).toEqual({ matched: [a], amount_over: [over], ours_missing: [stranger] });
  expect((await itemsOf(w.mids.crypto)).matched).not.toContain(today);

  const asked = invoiceCalls();
  const before = await db().one('SELECT (SELECT count(*)::int FROM reconciliation_statements) AS s, (SELECT count(*)::int FROM reconciliation_items) AS i');
  await pull();
  expect(invoiceCalls()).toBe(asked);
  expect(await db().one('SELECT (SELECT count(*)::int FROM reconciliation_statements) AS s, (SELECT count(*)::int FROM reconciliation_items) AS i')).toEqual(before);
  expect(await ledgerDrift(db())).toEqual([]);
});
