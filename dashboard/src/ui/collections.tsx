// The collection search shared by the operator console and the merchant portal: filters kept in the
// address (so a search can be shared and survives a reload), a date window that is always shown,
// and the result table. Operators also pick a business, and the table names each row's business.
import { useState } from 'react';
import type { FormEvent } from 'react';
import type { Admin } from '../api';
import { Link, navigate } from '../router';
import { CheckField, Field, SelectField, TextField } from './forms';
import { Money, Status, Time } from './parts';
import { DataTable } from './table';
import { localInputOf, PAYMENT_METHODS, STATUSES, utcOf, zoneName } from './values';

const WINDOW_DAYS = 30;
const DAY_MS = 86_400_000;

export interface Search {
  merchant_reference?: string;
  gateway_reference?: string;
  /** the customer's number (a phone number, a bank or crypto account) */
  account_number?: string;
  /** an operator's business filter, as typed in the address (the API judges it) */
  business_id?: string;
  status?: Admin['TransactionStatus'];
  payment_method?: Admin['PaymentMethod'];
  currency?: string;
  /** an operator's "Held only": the payments whose processor request waits on their decision */
  held?: boolean;
  from: string;
  to: string;
}

/** Where the overview's held count leads: every held payment, whenever it was made (they never expire). */
export const HELD_PAYMENTS = '/collections?held=true&from=2000-01-01T00:00:00Z';

/** The search the address holds (times in UTC); without dates, the last 30 days up to the end of the viewer's today. */
export function searchOf(query: URLSearchParams, now = new Date()): Search {
  const endOfToday = new Date(now.getFullYear(), now.getMonth(), now.getDate(), 23, 59, 59);
  const start = new Date(endOfToday.getTime() + 1000 - WINDOW_DAYS * DAY_MS);
  const api = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;
  const opt = (k: string) => query.get(k) || undefined;
  return {
    merchant_reference: opt('reference'),
    gateway_reference: opt('gateway'),
    account_number: opt('customer'),
    business_id: opt('business'),
    status: opt('status') as Search['status'],
    payment_method: opt('method') as Search['payment_method'],
    currency: opt('currency'),
    held: query.get('held') === 'true' || undefined,
    from: query.get('from') || api(start),
    to: query.get('to') || api(endOfToday),
  };
}

/** The operation's query parameters for a search. */
export function queryOf(s: Search) {
  return {
    merchant_reference: s.merchant_reference,
    gateway_reference: s.gateway_reference,
    account_number: s.account_number,
    business_id: s.business_id as unknown as number | undefined,
    status: s.status, payment_method: s.payment_method, currency: s.currency, held: s.held, from: s.from, to: s.to, per_page: 20 };
}

function addressOf(base: string, s: Search): string {
  const q = new URLSearchParams();
  const put = (k: string, v: string | undefined) => v && q.set(k, v);
  put('reference', s.merchant_reference);
  put('gateway', s.gateway_reference);
  put('customer', s.account_number);
  put('business', s.business_id);
  put('status', s.status);
  put('method', s.payment_method);
  put('currency', s.currency);
  put('held', s.held ? 'true' : undefined);
  put('from', s.from);
  put('to', s.to);
  return `${base}?${q}`;
}

/** A business to choose in the operator's filter. */
export interface BusinessChoice {
  id: number;
  name: string;
}

/** `businesses`: the operator's choice of business (merchants search their own only). */
export function SearchForm({ base, search, error, businesses }: { base: string; search: Search; error: unknown; businesses?: BusinessChoice[] }) {
  const [f, setF] = useState({
    reference: search.merchant_reference ?? '',
    gateway: search.gateway_reference ?? '',
    customer: search.account_number ?? '',
    business: search.business_id ?? '',
    status: search.status ?? '',
    method: search.payment_method ?? '',
    currency: search.currency ?? '',
    held: search.held ?? false,
    from: localInputOf(search.from) || search.from,
    to: localInputOf(search.to) || search.to,
  });
  const set = (k: Exclude<keyof typeof f, 'held'>) => (v: string) => setF({ ...f, [k]: v });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    navigate(
      addressOf(base, {
        merchant_reference: f.reference.trim() || undefined,
        gateway_reference: f.gateway.trim() || undefined,
        account_number: f.customer.trim() || undefined,
        business_id: f.business || undefined,
        status: (f.status || undefined) as Search['status'],
        payment_method: (f.method || undefined) as Search['payment_method'],
        currency: f.currency.trim().toUpperCase() || undefined,
        held: (businesses && f.held) || undefined,
        from: utcOf(f.from, false),
        to: utcOf(f.to, true),
      }),
    );
  };
  return (
    <form onSubmit={submit} aria-label="Search collections" className="search">
      {businesses && (
        <Field label="Business" name="business_id" error={error}>
          {(a) => (
            <select {...a} value={f.business} onChange={(e) => set('business')(e.target.value)}>
              <option value="">Any</option>
              {f.business && !businesses.some((b) => String(b.id) === f.business) && <option value={f.business}>#{f.business}</option>}
              {businesses.map((b) => (
                <option key={b.id} value={String(b.id)}>
                  {b.name} (#{b.id})
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      <TextField label="Gateway reference" name="gateway_reference" error={error} value={f.gateway} onValue={set('gateway')} />
      <TextField label="Merchant reference" name="merchant_reference" error={error} value={f.reference} onValue={set('reference')} />
      <TextField label="Customer number" name="account_number" hint="Phone number or account, as sent" error={error} value={f.customer} onValue={set('customer')} />
      <SelectField label="Status" name="status" error={error} options={['', ...STATUSES]} value={f.status} onValue={set('status')} />
      <SelectField label="Method" name="payment_method" error={error} options={['', ...PAYMENT_METHODS]} value={f.method} onValue={set('method')} />
      <TextField label="Currency" name="currency" maxLength={3} error={error} value={f.currency} onValue={set('currency')} />
      {businesses && <CheckField label="Held only" name="held" checked={f.held} onValue={(held) => setF({ ...f, held })} />}
      <TextField label={`From (${zoneName()})`} name="from" type="datetime-local" className="when" error={error} value={f.from} onValue={set('from')} />
      <TextField label={`To (${zoneName()})`} name="to" type="datetime-local" className="when" error={error} value={f.to} onValue={set('to')} />
      <button type="submit">Search</button>
    </form>
  );
}

/** The date window of the results, always on screen, so an empty list is never mistaken for "none ever". */
export function WindowLine({ search, total }: { search: Search; total: number | undefined }) {
  return (
    <p className="window" role="status">
      {total === undefined ? 'Searching' : `${total} collection${total === 1 ? '' : 's'}`} created from <Time at={search.from} /> to <Time at={search.to} />
      {total === 0 && '. Widen the dates or clear a filter to see more.'}
    </p>
  );
}

/**
 * `business`: a column naming each row's business, linked to its page (the operator's list); `held`: a
 * column saying why each is held (the operator's "Held only").
 */
export function CollectionTable({ base, rows, business, held, label = 'Collections found' }: { base: string; rows: Admin['AdminCollection'][]; business?: boolean; held?: boolean; label?: string }) {
  return (
    <DataTable
      label={label}
      cards
      rows={rows}
      rowKey={(c) => c.gateway_reference}
      columns={[
        {
          head: 'Reference',
          lead: true,
          cell: (c) => (
            <>
              <Link to={`${base}/${c.gateway_reference}`}>{c.merchant_reference}</Link>
              <br />
              <span className="muted small">{c.gateway_reference}</span>
            </>
          ),
        },
        ...(business ? [{ head: 'Business', cell: (c: Admin['AdminCollection']) => <Link to={`/businesses/${c.business_id}`}>{c.business_name}</Link> }] : []),
        { head: 'Status', lead: true, cell: (c) => <Status status={c.transaction_status} /> },
        ...(held ? [{ head: 'Held because', cell: (c: Admin['AdminCollection']) => c.processor_request?.held_reason ?? '—' }] : []),
        { head: 'Method', cell: (c) => c.payment_method },
        { head: 'Customer', cell: (c) => c.account_number ?? c.account_email ?? '—' },
        { head: 'Amount', num: true, lead: true, cell: (c) => <Money amount={c.request_amount} currency={c.request_currency} /> },
        { head: 'Created', cell: (c) => <Time at={c.created_at} /> },
      ]}
    />
  );
}

/** What every collection page shows: amounts, fee, credit, narration, customer and status message. */
export function CollectionSummary({ c }: { c: Admin['AdminCollection'] }) {
  return (
    <dl className="pairs">
      <dt>Status</dt>
      <dd>
        <Status status={c.transaction_status} /> {c.message}
      </dd>
      <dt>Merchant reference</dt>
      <dd>{c.merchant_reference}</dd>
      <dt>Narration</dt>
      <dd>{c.narration}</dd>
      <dt>Requested</dt>
      <dd>
        <Money amount={c.request_amount} currency={c.request_currency} />
      </dd>
      <dt>In the wallet currency</dt>
      <dd>
        <Money amount={c.account_amount} currency={c.account_currency} />
      </dd>
      <dt>Fee</dt>
      <dd>
        <Money amount={c.transaction_fee} currency={c.account_currency} /> {c.customer_charged ? '(paid by the customer)' : '(taken from the credit)'}
      </dd>
      <dt>Credit</dt>
      <dd>
        <Money amount={c.total_credit} currency={c.account_currency} />
      </dd>
      <dt>Method</dt>
      <dd>
        {c.payment_method}
        {c.institution_name ? ` via ${c.institution_name}` : ''}
      </dd>
      <dt>Customer number</dt>
      <dd>{c.account_number ?? '—'}</dd>
      <dt>Customer</dt>
      <dd>{[c.account_name, c.account_email].filter(Boolean).join(', ') || '—'}</dd>
      <dt>Created</dt>
      <dd>
        <Time at={c.created_at} />
      </dd>
      <dt>Last change</dt>
      <dd>
        <Time at={c.updated_at} />
      </dd>
    </dl>
  );
}
