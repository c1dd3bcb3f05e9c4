// Proves that a settlement the processor does not answer for ends the pull's run there, against the fake
// BTCPay Server over real sockets: a store's days are read oldest first; when the invoice list of one day is
// answered 503, the days before it are taken and none after it, so the period the crypto MID's statements
// cover stops short of it and its payment (past the deadline) is not counted theirs_missing, by the pull or by
// the hourly check; the next run reads on from that day and every payment matches.
import { ledgerDrift } from '../../src/ledger/ledger';
import { settledCryptoPayment, startHostedWorld } from '../helpers/hosted';
import type { HostedWorld } from '../helpers/hosted';

let w: HostedWorld;

beforeAll(async () => {
  w = await startHostedWorld({ PROCESSOR_CHECK_SCHEDULE: '10m', PROCESSOR_TIMEOUT_MS: '10000' });
}, 180_000);

afterAll(() => w?.close());

const db = () => w.svc.services.db;
const DAY_S = 86_400;
/** The start of the UTC day `n` days ago, in Unix seconds. */
const daysAgo = (n: number) => Math.floor(Date.now() / 1000 / DAY_S) * DAY_S - n * DAY_S;

/** The crypto MID's items: state -> our gateway_reference (or the line's reference), sorted. */
async function items(): Promise<Record<string, string[]>> {
  const rows = await db().any<{ state: string; reference: string }>(
    'SELECT i.state, COALESCE(c.gateway_reference, i.reference) AS reference FROM reconciliation_items i LEFT JOIN collections c ON c.id = i.collection_id WHERE i.mid_id = $1 ORDER BY 2',
    [w.mids.crypto]);
  const out: Record<string, string[]> = {};
  for (const r of rows) (out[r.state] ??= []).push(r.reference);
  return out;
}

/** The days (YYYY-MM-DD) the crypto MID holds a statement of. */
async function daysTaken(): Promise<string[]> {
  const rows = await db().any<{ day: string }>(
    "SELECT to_char(first_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM reconciliation_statements WHERE mid_id = $1 AND source = 'btcpay_invoices' ORDER BY 1", [w.mids.crypto]);
  return rows.map((r) => r.day);
}

it('reads the days before an unanswered one, none after it, counts nothing of it missing, and reads on from it next run', async () => {
  // three payments, on the days six, five and four days ago at 10:00 (UTC): all past the three-day deadline
  const [six, five, four] = [await settledCryptoPayment(w), await settledCryptoPayment(w), await settledCryptoPayment(w)];
  for (const [p, n] of [[six, 6], [five, 5], [four, 4]] as const) w.btcpay.invoice(p.invoiceId)!.createdTime = daysAgo(n) + 10 * 3600;
  const day = (n: number) => new Date(daysAgo(n) * 1000).toISOString().slice(0, 10);
  w.btcpay.unavailableFrom.add(daysAgo(5));

  expect(await w.svc.services.reconciliation.settlements.pull()).toBeGreaterThan(0);
  const taken = await daysTaken();
  expect(taken).toContain(day(6));
  expect(taken.filter((d) => d >= day(5))).toEqual([]);
  // the day before is matched; the unanswered day's payment and the one after it are in no period yet
  expect(await items()).toEqual({ matched: [six.gatewayReference] });
  expect(await w.svc.services.reconciliation.intake.missingDue()).toBe(0);
  expect(await items()).toEqual({ matched: [six.gatewayReference] });

  // the store answers again: the next run reads on from that day, and every payment matches
  w.btcpay.unavailableFrom.clear();
  expect(await w.svc.services.reconciliation.settlements.pull()).toBeGreaterThan(0);
  expect(await daysTaken()).toEqual(expect.arrayContaining([day(5), day(4), day(3), day(2)]));
  expect(await items()).toEqual({ matched: [six.gatewayReference, five.gatewayReference, four.gatewayReference].sort() });
  expect(await ledgerDrift(db())).toEqual([]);
}, 120_000);
