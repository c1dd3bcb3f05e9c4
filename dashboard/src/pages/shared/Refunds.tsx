// Refunds of every payment (a merchant's own, an operator's of every business or one): filters kept in the
// address, as the collection search keeps its own, and the refunds export (exportAdminRefunds) with them as a
// CSV download. Each payment's page lists its refunds one by one; the admin API has no list of all refunds yet,
// so this page hands over the file rather than a table.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { admin, unwrapPage } from '../../api';
import { navigate, useLocation } from '../../router';
import { Field, SelectField, TextField } from '../../ui/forms';
import { Time } from '../../ui/parts';
import { localInputOf, utcOf, zoneName } from '../../ui/values';

const STATES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;

/** The filters in the address (times in UTC), by the export's own parameter names. */
const FILTERS = ['business_id', 'status', 'currency', 'merchant_reference', 'collection_gateway_reference', 'from', 'to'] as const;
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
  const businesses = useQuery({
    queryKey: ['business-choices'],
    enabled: operator,
    queryFn: async () => (await unwrapPage(admin.GET('/v1/admin/businesses', { params: { query: { per_page: 100 } } }))).items,
  });
  const file = queryText({ ...filters, business_id: operator ? filters.business_id : String(businessId) });
  return (
    <>
      <h1>Refunds</h1>
      <p>Each payment's page lists its refunds. Download every refund these filters find as one file for your books.</p>
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
      <TextField label="Currency" name="currency" maxLength={3} error={null} value={f.currency ?? ''} onValue={set('currency')} />
      <TextField label="Merchant reference" name="merchant_reference" error={null} value={f.merchant_reference ?? ''} onValue={set('merchant_reference')} />
      <TextField label="Payment's gateway reference" name="collection_gateway_reference" error={null} value={f.collection_gateway_reference ?? ''} onValue={set('collection_gateway_reference')} />
      <TextField label={`From (${zoneName()})`} name="from" type="datetime-local" className="when" error={null} value={f.from} onValue={set('from')} />
      <TextField label={`To (${zoneName()})`} name="to" type="datetime-local" className="when" error={null} value={f.to} onValue={set('to')} />
      <button type="submit">Apply</button>
    </form>
  );
}
