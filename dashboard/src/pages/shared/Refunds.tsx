// Refunds of every payment (a merchant's own, an operator's of every business or one): filters kept in the
// address, as the collection search keeps its own, the list (listAdminRefunds) paged by cursor, and the refunds
// export (exportAdminRefunds) with the same filters as a CSV download. Operators see the refunds held for
// them marked with why (and "Held only" lists just those); an operator admin decides one (resolveHeldRefund).
// A merchant's people see a held refund as the merchant API reads it: no mark, no filter.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { admin, unwrapPage } from '../../api';
import type { Admin } from '../../api';
import { Link, navigate, useLocation } from '../../router';
import { useCan } from '../../session';
import { CheckField, Field, SelectField, TextField } from '../../ui/forms';
import { Pager, useCursorList } from '../../ui/paging';
import { LoadError, Loading, Money, Status, Time } from '../../ui/parts';
import { DataTable } from '../../ui/table';
import { localInputOf, utcOf, zoneName } from '../../ui/values';
import { HeldMark, ResolveHeldRefund } from '../operator/HeldRefund';

const STATES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;

/** The filters in the address (times in UTC), by the export's own parameter names. */
const FILTERS = ['business_id', 'status', 'held', 'currency', 'merchant_reference', 'collection_gateway_reference', 'from', 'to'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

function filtersOf(query: URLSearchParams): Filters {
  const f: Filters = {};
  for (const k of FILTERS) if (query.get(k)) f[k] = query.get(k) as string;
  return f;
}

const queryText = (f: Filters) => new URLSearchParams(Object.entries(f).filter(([, v]) => v) as [string, string][]).toString();

/** `businessId`: a merchant's own business (the server allows no other); an operator may pick one. */
export function RefundsPage({ base, businessId }: { base: string; businessId?: number }) {
  const { query } = useLocation();
  const filters = filtersOf(query);
  const operator = businessId === undefined;
  const mayResolve = useCan('operate');
  const [deciding, setDeciding] = useState<Admin['AdminRefundRecord'] | null>(null);
  const [resolved, setResolved] = useState<Admin['AdminRefundRecord'] | null>(null);
  const businesses = useQuery({
    queryKey: ['business-choices'],
    enabled: operator,
    queryFn: async () => (await unwrapPage(admin.GET('/v1/admin/businesses', { params: { query: { per_page: 100 } } }))).items,
  });
  const { list, pages } = useCursorList(['all-refunds', businessId ?? 'all', filters], (cursor) =>
    unwrapPage(
      admin.GET('/v1/admin/refunds', {
        params: {
          query: {
            business_id: operator ? (filters.business_id as unknown as number | undefined) : businessId,
            status: filters.status as Admin['RefundStatus'] | undefined,
            held: operator && filters.held === 'true' ? true : undefined,
            currency: filters.currency,
            merchant_reference: filters.merchant_reference,
            collection_gateway_reference: filters.collection_gateway_reference,
            from: filters.from,
            to: filters.to,
            cursor,
            per_page: 20,
          },
        },
      }),
    ),
  );
  const file = queryText({ ...filters, business_id: operator ? filters.business_id : String(businessId) });
  return (
    <>
      <h1>Refunds</h1>
      <FilterForm key={query.toString()} base={base} filters={filters} businesses={operator ? (businesses.data ?? []) : undefined} />
      <p className="window" role="status">
        Refunds created {filters.from ? <>from <Time at={filters.from} /></> : 'from the first'} {filters.to ? <>to <Time at={filters.to} /></> : 'to now'}
      </p>
      <p className="downloads">
        <a href={`/v1/admin/exports/refunds${file ? `?${file}` : ''}`} download>
          Download CSV
        </a>{' '}
        <span className="muted">of every refund these filters find (times in UTC).</span>
      </p>
      {list.isPending && <Loading what="refunds" />}
      {list.error && <LoadError error={list.error} retry={() => list.refetch()} />}
      {list.data && list.data.items.length === 0 && <p>No refund matches these filters.</p>}
      {resolved?.resolution && (
        <p role="status" className="notice">
          Refund {resolved.merchant_reference} resolved as {resolved.resolution.outcome}.
        </p>
      )}
      {list.data && list.data.items.length > 0 && (
        <RefundTable
          rows={list.data.items}
          paymentBase={operator ? '/collections' : '/payments'}
          decide={
            operator && mayResolve
              ? (r) => {
                  setResolved(null);
                  setDeciding(r);
                }
              : undefined
          }
        />
      )}
      <Pager pages={pages} total={list.data?.total} />
      {deciding && (
        <ResolveHeldRefund
          key={deciding.gateway_reference}
          refund={deciding}
          done={(r) => {
            setDeciding(null);
            setResolved(r);
          }}
        />
      )}
    </>
  );
}

function FilterForm({ base, filters, businesses }: { base: string; filters: Filters; businesses?: { id: number; name: string }[] }) {
  const [f, setF] = useState({ ...filters, from: localInputOf(filters.from) || (filters.from ?? ''), to: localInputOf(filters.to) || (filters.to ?? '') });
  const set = (k: keyof Filters) => (v: string) => setF({ ...f, [k]: v });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const next: Filters = {
      ...f,
      currency: f.currency?.trim().toUpperCase(),
      merchant_reference: f.merchant_reference?.trim(),
      collection_gateway_reference: f.collection_gateway_reference?.trim(),
      from: f.from ? utcOf(f.from, false) : undefined,
      to: f.to ? utcOf(f.to, true) : undefined,
    };
    const text = queryText(next);
    navigate(text ? `${base}?${text}` : base);
  };
  return (
    <form onSubmit={submit} aria-label="Filter refunds" className="search">
      {businesses && (
        <Field label="Business" name="business_id" error={null}>
          {(a) => (
            <select {...a} value={f.business_id ?? ''} onChange={(e) => set('business_id')(e.target.value)}>
              <option value="">Any</option>
              {businesses.map((b) => (
                <option key={b.id} value={String(b.id)}>
                  {b.name} (#{b.id})
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      <SelectField label="State" name="status" error={null} options={['', ...STATES]} value={f.status ?? ''} onValue={set('status')} />
      {businesses && <CheckField label="Held only" name="held" checked={f.held === 'true'} onValue={(v) => set('held')(v ? 'true' : '')} />}
      <TextField label="Currency" name="currency" maxLength={3} error={null} value={f.currency ?? ''} onValue={set('currency')} />
      <TextField label="Merchant reference" name="merchant_reference" error={null} value={f.merchant_reference ?? ''} onValue={set('merchant_reference')} />
      <TextField label="Payment's gateway reference" name="collection_gateway_reference" error={null} value={f.collection_gateway_reference ?? ''} onValue={set('collection_gateway_reference')} />
      <TextField label={`From (${zoneName()})`} name="from" type="datetime-local" className="when" error={null} value={f.from} onValue={set('from')} />
      <TextField label={`To (${zoneName()})`} name="to" type="datetime-local" className="when" error={null} value={f.to} onValue={set('to')} />
      <button type="submit">Apply</button>
    </form>
  );
}

/**
 * One card per refund on a phone, its amount and state first; the payment it gives back links to its page.
 * A refund held for an operator is marked with why (operators only: the API gives merchants no reason),
 * with a Resolve button when `decide` is given (operator admins).
 */
function RefundTable({ rows, paymentBase, decide }: { rows: Admin['AdminRefundRecord'][]; paymentBase: string; decide?: (r: Admin['AdminRefundRecord']) => void }) {
  return (
    <DataTable
      label="Refunds found"
      cards
      rows={rows}
      rowKey={(r) => r.gateway_reference}
      columns={[
        {
          head: 'Reference',
          lead: true,
          cell: (r) => (
            <>
              {r.merchant_reference}
              <br />
              <span className="muted small">{r.gateway_reference}</span>
            </>
          ),
        },
        {
          head: 'State',
          lead: true,
          cell: (r) => (
            <>
              <Status status={r.transaction_status} /> <HeldMark refund={r} />
              {decide && r.held_reason && (
                <>
                  {' '}
                  <button type="button" className="secondary" aria-label={`Resolve held refund ${r.merchant_reference}`} onClick={() => decide(r)}>
                    Resolve…
                  </button>
                </>
              )}
            </>
          ),
        },
        { head: 'Payment', cell: (r) => <Link to={`${paymentBase}/${r.collection_gateway_reference}`}>{r.collection_gateway_reference}</Link> },
        { head: 'Amount', num: true, lead: true, cell: (r) => <Money amount={r.amount} currency={r.currency} /> },
        { head: 'Created', cell: (r) => <Time at={r.created_at} /> },
      ]}
    />
  );
}
