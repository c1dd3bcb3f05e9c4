// The MTN MoMo partner report of a fake MTN's requests to pay, as the partner portal lets a collection
// account download it (CSV): a header row from "Id" (External Transaction Id, Date, Status, Type, Provider
// Category, From, To, Amount, Currency, Fee, Fee Currency, Balance); `Date` in the partner's local time without
// a zone; amounts with thousands separators; the fee in its own column; our X-Reference-Id in External
// Transaction Id; a reversal as a REVERSAL row of its own Id, carrying the reversed payment's External
// Transaction Id; when asked (moneyOut), the refunds and transfers it carried out, as rows of Type REFUND and
// TRANSFER under the X-Reference-Id of our refund or transfer (the money out of an account that also
// disburses: the portal lists every transaction of the account). What is
// injected (another amount or currency, a payment we never asked for, a reversal) is the test's to say.
import { randomUUID } from 'node:crypto';
import type { FakeMtnMomo } from './mtn-momo';

export interface ReportInjections {
  /** X-Reference-Id -> the amount the report says was paid instead */
  amounts?: Map<string, number>;
  /** X-Reference-Id -> the currency the report says was paid in */
  currencies?: Map<string, string>;
  /** X-Reference-Ids left out of the report */
  omit?: Set<string>;
  /** X-Reference-Ids reversed by MTN after the payment */
  reverse?: Set<string>;
  /** X-Reference-Id -> the part of the payment MTN reversed (the whole when not given) */
  reversedAmounts?: Map<string, number>;
  /** payments we never asked for: their amounts */
  extra?: number[];
  /** the refunds and transfers the fake carried out, as REFUND and TRANSFER rows */
  moneyOut?: MoneyOutInjections;
}

export interface MoneyOutInjections {
  /** when the money went out (the report's time when not given) */
  at?: Date;
  /** X-Reference-Ids of refunds or transfers left out of the report */
  omit?: Set<string>;
  /** X-Reference-Id of a refund or transfer -> the amount the report says was paid out instead */
  amounts?: Map<string, number>;
  /** transfers we never asked for: their amounts */
  extraPayouts?: number[];
}

const pad = (n: number) => String(n).padStart(2, '0');
const local = (d: Date, offsetMinutes: number) => {
  const e = new Date(d.getTime() + offsetMinutes * 60_000);
  return `${e.getUTCFullYear()}-${pad(e.getUTCMonth() + 1)}-${pad(e.getUTCDate())} ${pad(e.getUTCHours())}:${pad(e.getUTCMinutes())}:${pad(e.getUTCSeconds())}`;
};
const thousands = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** MTN's own transaction ids: unique across reports, as MTN's are */
let lastId = 5_000_000;

/** The report of every successful request to pay the fake saw, at `at` (the partner `offsetMinutes` east of UTC). */
export function mtnPartnerReport(fake: FakeMtnMomo, at: Date, offsetMinutes: number, inject: ReportInjections = {}): string {
  const rows: string[] = ['Id,External Transaction Id,Date,Status,Type,Provider Category,From,To,Amount,Currency,Fee,Fee Currency,Balance'];
  let id = lastId;
  const ids = new Map<string, number>();
  const row = (cells: (string | number)[]) => rows.push(cells.map((c) => (/[",]/.test(String(c)) ? `"${String(c)}"` : String(c))).join(','));
  for (const r of fake.requests.values()) {
    if (r.status !== 'SUCCESSFUL' || inject.omit?.has(r.reference)) continue;
    id += 1;
    ids.set(r.reference, id);
    const amount = inject.amounts?.get(r.reference) ?? Number(r.amount);
    const currency = inject.currencies?.get(r.reference) ?? r.currency;
    row([id, r.reference, local(r.paidAt ?? at, offsetMinutes), 'SUCCESSFUL', 'DEBIT', 'Collections', r.partyId, 'PayCollect', thousands(amount), currency, Math.round(amount * 0.01), currency, thousands(1_000_000)]);
  }
  for (const amount of inject.extra ?? []) row([++id, randomUUID(), local(at, offsetMinutes), 'SUCCESSFUL', 'DEBIT', 'Collections', '256772000001', 'PayCollect', thousands(amount), 'UGX', 0, 'UGX', thousands(1_000_000)]);
  for (const reference of inject.reverse ?? []) {
    const r = fake.requests.get(reference);
    if (!r || !ids.has(reference)) throw new Error(`no payment ${reference} to reverse`);
    row([++id, reference, local(new Date((r.paidAt ?? at).getTime() + 60_000), offsetMinutes), 'SUCCESSFUL', 'REVERSAL', 'Collections', 'PayCollect', r.partyId, thousands(inject.reversedAmounts?.get(reference) ?? Number(r.amount)), r.currency, 0, r.currency, thousands(1_000_000)]);
  }
  const out = inject.moneyOut;
  if (out) {
    const when = local(out.at ?? new Date(at.getTime() + 30_000), offsetMinutes);
    const payee = (r: { referenceIdToRefund: string }) => fake.requests.get(r.referenceIdToRefund)?.partyId ?? '256772000001';
    const moved = [
      ...[...fake.refunds.values()].map((r) => ({ type: 'REFUND', reference: r.reference, amount: r.amount, currency: r.currency, status: r.status, to: payee(r) })),
      ...[...fake.transfers.values()].map((t) => ({ type: 'TRANSFER', reference: t.reference, amount: t.amount, currency: t.currency, status: t.status, to: t.partyId })),
    ];
    for (const m of moved) {
      if (m.status !== 'SUCCESSFUL' || out.omit?.has(m.reference)) continue;
      const amount = out.amounts?.get(m.reference) ?? Number(m.amount);
      row([++id, m.reference, when, 'SUCCESSFUL', m.type, 'Disbursements', 'PayCollect', m.to, thousands(amount), m.currency, 0, m.currency, thousands(1_000_000)]);
    }
    for (const amount of out.extraPayouts ?? []) row([++id, randomUUID(), when, 'SUCCESSFUL', 'TRANSFER', 'Disbursements', 'PayCollect', '256772000002', thousands(amount), 'UGX', 0, 'UGX', thousands(1_000_000)]);
  }
  lastId = id;
  return rows.join('\r\n') + '\r\n';
}
