// The M-Pesa organisation statement of a fake Daraja's payments, as the M-Pesa portal lets a business
// download it (CSV): a preamble (organisation, short code, period), then the header row "Receipt No.,
// Completion Time, Initiation Time, Details, Transaction Status, Paid In, Withdrawn, Balance, Balance
// Confirmed, Reason Type, Other Party Info, Linked Transaction ID, A/C No."; times in East Africa Time
// (UTC+3) without a zone; amounts with thousands separators ("1,500.00") and quoted; a reversal as its own
// Withdrawn row naming the reversed receipt in Linked Transaction ID; the charge of each payment as its own
// Withdrawn row (Reason Type "Pay Bill Online Charge"); attempts that did not complete as rows of their own
// status; the file opened by a UTF-8 byte-order mark, and a Details cell broken over two lines; when asked
// (refunds), each reversal the fake carried out through the Reversal API as a Withdrawn row of its own
// receipt naming the reversed payment's in Linked Transaction ID, worded as the operator's reversal is (the
// file does not tell the two apart). What is
// injected (a differing amount, a payment left out, one we never asked for, a reversal) is the test's to say.
import { randomBytes } from 'node:crypto';
import type { FakeMpesa, FakeStkPush } from './mpesa';

export interface StatementInjections {
  /** receipt -> the amount the statement says was paid instead */
  amounts?: Map<string, number>;
  /** receipts left out of the statement */
  omit?: Set<string>;
  /** receipts reversed by the operator after the payment: a Withdrawn reversal row each */
  reverse?: Set<string>;
  /** payments into the till we never asked for: their amounts */
  extra?: number[];
  /** the reversals the fake carried out through the Reversal API (our refunds), as Withdrawn reversal rows */
  refunds?: boolean;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** "2026-11-30 14:03:22" in East Africa Time. */
export function eat(d: Date): string {
  const e = new Date(d.getTime() + 3 * 3_600_000);
  return `${e.getUTCFullYear()}-${pad(e.getUTCMonth() + 1)}-${pad(e.getUTCDate())} ${pad(e.getUTCHours())}:${pad(e.getUTCMinutes())}:${pad(e.getUTCSeconds())}`;
}

/** 1500 -> "1,500.00" */
export function kes(amount: number): string {
  const [whole, cents] = amount.toFixed(2).split('.');
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${cents}`;
}

const receipt = () => 'NX' + randomBytes(4).toString('hex').toUpperCase();
const q = (cell: string) => (/[",\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell);

/** The statement of every completed payment the fake saw, with the injections, as the file's text. */
export function mpesaStatement(fake: FakeMpesa, inject: StatementInjections = {}): string {
  const paid = [...fake.pushes.values()].filter((p): p is FakeStkPush & { receipt: string; settledAt: Date } => p.resultCode === 0 && p.receipt !== null && p.settledAt !== undefined);
  paid.sort((a, b) => a.settledAt.getTime() - b.settledAt.getTime());
  const rows: string[][] = [];
  let balance = 1_000_000;
  const row = (r: string, at: Date, details: string, status: string, paidIn: number | null, withdrawn: number | null, reason: string, other: string, linked: string, account: string) => {
    balance += (paidIn ?? 0) - (withdrawn ?? 0);
    rows.push([r, eat(at), eat(new Date(at.getTime() - 6_000)), details, status, paidIn === null ? '' : kes(paidIn), withdrawn === null ? '' : `-${kes(withdrawn)}`, kes(balance), 'true', reason, other, linked, account]);
  };
  paid.forEach((p, i) => {
    if (inject.omit?.has(p.receipt)) return;
    const amount = inject.amounts?.get(p.receipt) ?? p.amount;
    // every fifth payment's Details carries a line break (the portal wraps long names)
    const details = i % 5 === 0 ? `Pay Bill Online from ${p.phone}\nvia M-PESA Express` : 'Pay Bill Online';
    row(p.receipt, p.settledAt, details, 'Completed', amount, null, 'Pay Bill Online', `${p.phone} - JANE DOE`, '', p.accountReference);
    row(receipt(), p.settledAt, 'Pay Bill Online Charge', 'Completed', null, Math.max(1, Math.round(amount * 0.005)), 'Pay Bill Online Charge', '', p.receipt, '');
    if (i === 1) row(receipt(), p.settledAt, 'Pay Bill Online', 'Cancelled', amount, null, 'Pay Bill Online', `${p.phone} - JANE DOE`, '', p.accountReference);
  });
  const last = paid.length > 0 ? paid[paid.length - 1].settledAt : new Date();
  (inject.extra ?? []).forEach((amount, i) => row(receipt(), new Date(last.getTime() - (i + 1) * 1_000), 'Pay Bill Online', 'Completed', amount, null, 'Pay Bill Online', '254700000001 - JOHN ROE', '', 'UNKNOWN'));
  for (const r of inject.reverse ?? []) {
    const p = paid.find((x) => x.receipt === r);
    if (!p) throw new Error(`no payment ${r} to reverse`);
    row(receipt(), new Date(last.getTime() + 60_000), `Reversal of ${r}`, 'Completed', null, p.amount, 'Reversal', `${p.phone} - JANE DOE`, r, p.accountReference);
  }
  if (inject.refunds) {
    for (const v of fake.reversals.values()) {
      if (v.resultCode !== '0' || v.receipt === null) continue;
      const p = paid.find((x) => x.receipt === v.transactionId);
      row(v.receipt, new Date(last.getTime() + 120_000), `Reversal of ${v.transactionId}`, 'Completed', null, v.amount, 'Reversal', p ? `${p.phone} - JANE DOE` : '', v.transactionId, p?.accountReference ?? '');
    }
  }
  const first = paid.length > 0 ? paid[0].settledAt : new Date();
  const preamble = [
    ['Organization Name', 'PayCollect Test Till'],
    ['Short Code', fake.o.shortCode],
    ['Time Period', `${eat(first)} - ${eat(last)}`],
    [],
  ];
  const header = ['Receipt No.', 'Completion Time', 'Initiation Time', 'Details', 'Transaction Status', 'Paid In', 'Withdrawn', 'Balance', 'Balance Confirmed', 'Reason Type', 'Other Party Info', 'Linked Transaction ID', 'A/C No.'];
  return '\ufeff' + [...preamble, header, ...rows].map((r) => r.map(q).join(',')).join('\r\n') + '\r\n';
}
