// A wallet's statement as a page (getAdminWalletStatement): the wallet and whole UTC days chosen in the
// address, the opening and closing balances, the lines a page at a time (each with the merchant's own
// reference beside the gateway's, the fee, the balance after and a converted credit's FX), and the CSV
// file of the same statement. A statement is an accountant's document in UTC, as its CSV is, so the days
// are typed as yyyy-mm-dd text under a "UTC" label and every time is written in UTC: nothing on the page
// is in the browser's own format or zone.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { admin, unwrap } from '../../api';
import type { Admin } from '../../api';
import { navigate, useLocation } from '../../router';
import { SelectField, TextField } from '../../ui/forms';
import { Pager, useCursorList } from '../../ui/paging';
import { LoadError, Loading, Money, Section } from '../../ui/parts';
import { DataTable } from '../../ui/table';
import { utcText } from '../../ui/time';
import { todayUtc, UTC_DAY, UTC_DAY_HINT } from '../../ui/values';

const PER_PAGE = 50;
const firstOfMonthUtc = () => `${todayUtc().slice(0, 8)}01`;
/** The UTC instant a UTC day begins, `after` days later; the text as typed when it is no day, for the API to judge. */
function startOf(day: string, after = 0): string {
  if (!UTC_DAY.test(day)) return day;
  const d = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return day;
  d.setUTCDate(d.getUTCDate() + after);
  return `${d.toISOString().slice(0, 19)}Z`;
}

const KINDS: Record<string, string> = {
  collection_credit: 'Payment credited',
  reserve_release: 'Reserve released',
  settlement: 'Card payment settled',
  refund_hold: 'Refund held',
  refund_out: 'Refund paid',
  refund_return: 'Refund failed, money returned',
  disbursement_hold: 'Payout held',
  disbursement_out: 'Payout paid',
  disbursement_return: 'Payout failed, money returned',
  disbursement_reversal: 'Payout reversed by the processor',
};

/** `base`: the page's own address, whose query keeps the filters; `nested`: a section of a page with its own heading. */
export function StatementPage({ businessId, base, nested }: { businessId: number; base: string; nested?: boolean }) {
  const { query } = useLocation();
  const wallets = useQuery({
    queryKey: ['wallet-settings', businessId],
    queryFn: () => unwrap(admin.GET('/v1/admin/businesses/{business_id}/wallets', { params: { path: { business_id: businessId }, query: { per_page: 100 } } })),
  });
  const currencies = wallets.data?.data.map((w) => w.currency) ?? [];
  const fallback = wallets.data?.data.find((w) => w.is_default)?.currency ?? currencies[0] ?? '';
  const asked = { currency: query.get('currency') ?? fallback, from: query.get('from') ?? firstOfMonthUtc(), to: query.get('to') ?? todayUtc() };
  const period = { from: startOf(asked.from), to: startOf(asked.to, 1) };
  // a statement page is one item (its balances with its lines), paged by the cursor of its lines like any list
  const { list, pages } = useCursorList(['statement', businessId, asked], async (cursor) => {
    const body = await unwrap(
      admin.GET('/v1/admin/businesses/{business_id}/wallets/{currency}/statement', {
        params: { path: { business_id: businessId, currency: asked.currency }, query: { ...period, format: 'json', per_page: PER_PAGE, cursor } },
      }),
    );
    // asked for JSON the envelope comes; the CSV answer would be a string
    if (typeof body === 'string') throw new Error('PayCollect answered the statement as a file, not as JSON');
    return { items: [body.data], total: body.paging.total, nextCursor: body.paging.next_cursor };
  });
  const ready = asked.currency !== '';
  const statement = list.data?.items[0];
  const file = new URLSearchParams({ ...period, format: 'csv' }).toString();
  return (
    <>
      {nested ? <h2>Statement</h2> : <h1>Statement</h1>}
      <p>
        Every movement of one wallet over whole days in UTC: the balance at the start, each payment credited, reserve released, card payment settled, refund and
        payout with your own reference beside PayCollect&apos;s, the fee taken, the balance after, and the balance at the end.
      </p>
      {wallets.error && <LoadError error={wallets.error} retry={() => wallets.refetch()} />}
      {wallets.data && <FilterForm key={query.toString()} base={base} currencies={currencies} asked={asked} error={list.error} />}
      {ready && (
        <p className="downloads">
          <a href={`/v1/admin/businesses/${businessId}/wallets/${asked.currency}/statement?${file}`} download>
            Download CSV
          </a>{' '}
          <span className="muted">
            of the whole {asked.currency} statement from {asked.from} to {asked.to} (UTC days, times in UTC).
          </span>
        </p>
      )}
      {ready && list.isPending && <Loading what="the statement" />}
      {list.error && <LoadError error={list.error} retry={() => list.refetch()} />}
      {statement && <StatementView statement={statement} total={list.data?.total ?? 0} />}
      <Pager pages={pages} total={list.data?.total} />
    </>
  );
}

function FilterForm({ base, currencies, asked, error }: { base: string; currencies: string[]; asked: { currency: string; from: string; to: string }; error: unknown }) {
  const [f, setF] = useState(asked);
  const set = (k: keyof typeof f) => (v: string) => setF({ ...f, [k]: v });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    navigate(`${base}?${new URLSearchParams({ currency: f.currency, from: f.from.trim(), to: f.to.trim() })}`);
  };
  return (
    <form onSubmit={submit} aria-label="Statement filters" className="filters">
      <SelectField label="Wallet" name="currency" error={error} options={currencies} optionName={(c) => `${c} wallet`} value={f.currency} onValue={set('currency')} />
      <TextField label="From (UTC day, yyyy-mm-dd)" name="from" type="text" error={error} hint={UTC_DAY_HINT} inputMode="numeric" autoComplete="off" value={f.from} onValue={set('from')} />
      <TextField label="To (UTC day, included, yyyy-mm-dd)" name="to" type="text" error={error} hint={UTC_DAY_HINT} inputMode="numeric" autoComplete="off" value={f.to} onValue={set('to')} />
      <div className="actions">
        <button type="submit">Show statement</button>
      </div>
    </form>
  );
}

type Line = Admin['StatementLine'];

function StatementView({ statement, total }: { statement: Admin['WalletStatement']; total: number }) {
  const c = statement.currency;
  const money = (amount: number) => <Money amount={amount} currency={c} />;
  return (
    <>
      <Section title={`${c} statement`}>
        <dl className="pairs">
          <dt>From</dt>
          <dd>{utcText(new Date(statement.from))}</dd>
          <dt>To (excluded)</dt>
          <dd>{utcText(new Date(statement.to))}</dd>
          <dt>Opening balance</dt>
          <dd>{money(statement.opening_balance.total)}</dd>
          <dt>Closing balance</dt>
          <dd>{money(statement.closing_balance.total)}</dd>
          <dt>Movements</dt>
          <dd>{total}</dd>
        </dl>
      </Section>
      {statement.lines.length === 0 ? (
        <p>No movement of the {c} wallet in these days.</p>
      ) : (
        <DataTable<Line>
          label={`${c} statement lines`}
          stacked
          rows={statement.lines}
          rowKey={(l) => l.journal_id}
          columns={[
            { head: 'Time (UTC)', cell: (l) => <time dateTime={l.time}>{utcText(new Date(l.time))}</time> },
            { head: 'Kind', cell: (l) => KINDS[l.kind] ?? l.kind },
            { head: 'Your reference', cell: (l) => l.merchant_reference ?? <span className="muted">—</span> },
            { head: 'PayCollect reference', cell: (l) => l.reference ?? <span className="muted">—</span> },
            { head: 'Amount', num: true, cell: (l) => money(l.change.total) },
            { head: 'Fee', num: true, cell: (l) => money(l.fee) },
            { head: 'Balance after', num: true, cell: (l) => money(l.balance_after) },
            { head: 'Conversion', cell: (l) => <Conversion line={l} currency={c} /> },
          ]}
        />
      )}
    </>
  );
}

/** What the customer paid and the rates, on the credit of a converted payment. */
function Conversion({ line, currency }: { line: Line; currency: string }) {
  if (line.request_amount === null || line.request_currency === null || line.fx_rate === null) return <span className="muted">—</span>;
  return (
    <>
      Paid <Money amount={line.request_amount} currency={line.request_currency} /> at {line.fx_rate} {currency}/{line.request_currency}
      {line.fx_reference_rate !== null && (
        <>
          {' '}
          (market {line.fx_reference_rate}, markup {line.fx_markup}
          {line.fx_source ? `, ${line.fx_source}` : ''}
          {line.fx_as_of ? ` as of ${utcText(new Date(line.fx_as_of))}` : ''})
        </>
      )}
    </>
  );
}
