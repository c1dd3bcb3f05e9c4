// File downloads from the admin API: the collections and disbursements exports and a wallet's statement (whole days of the
// viewer's time zone), as CSV. The dashboard
// signs in with a session cookie, which a plain link carries by itself, so each is a link the browser saves
// (the API answers `Content-Disposition: attachment`); no file is built in the page.
import { useState } from 'react';
import type { ReactNode } from 'react';
import type { Search } from './collections';
import { localMinute, zoneName } from './values';

/** The collections export with the list's filters that the export takes (all but the reference searches). */
export function CollectionsCsvLink({ search, businessId }: { search: Search; businessId?: number }) {
  const q = new URLSearchParams();
  const put = (k: string, v: string | number | undefined) => v !== undefined && v !== '' && q.set(k, String(v));
  put('business_id', businessId ?? search.business_id);
  put('status', search.status);
  put('payment_method', search.payment_method);
  put('currency', search.currency);
  put('merchant_reference', search.merchant_reference);
  put('from', search.from);
  put('to', search.to);
  const unapplied = Boolean(search.gateway_reference || search.account_number);
  return (
    <ExportLink path="/v1/admin/exports/collections" query={q}>
      of every collection these filters find (times in UTC){unapplied && '; the gateway reference and customer searches are not applied to the file'}.
    </ExportLink>
  );
}

/** "Download CSV" of an export with the list's filters, and what the file holds. */
function ExportLink({ path, query, children }: { path: string; query: URLSearchParams; children: ReactNode }) {
  const text = query.toString();
  return (
    <p className="downloads">
      <a href={`${path}${text ? `?${text}` : ''}`} download>
        Download CSV
      </a>{' '}
      <span className="muted">{children}</span>
    </p>
  );
}

/** The disbursements export with the list's filters: a merchant's own business (the server allows no other), or an operator's choice. */
export function DisbursementsCsvLink({ businessId, status }: { businessId?: number; status?: string }) {
  const q = new URLSearchParams();
  if (businessId !== undefined) q.set('business_id', String(businessId));
  if (status) q.set('status', status);
  return (
    <ExportLink path="/v1/admin/exports/disbursements" query={q}>
      of every disbursement {status ? `in ${status} ` : ''}(times in UTC).
    </ExportLink>
  );
}

/** A Date's day in the viewer's time zone, as a date input's `YYYY-MM-DD`. */
const day = (d: Date) => localMinute(d).slice(0, 10);

/** The UTC instant at which the viewer's day `YYYY-MM-DD` begins, `after` days later (a day is not always 24 hours). */
function startOf(date: string, after = 0): string {
  const d = new Date(`${date}T00:00:00`); // no zone: the viewer's own
  d.setDate(d.getDate() + after);
  return `${d.toISOString().slice(0, 19)}Z`;
}

/** A wallet's statement for whole days of the viewer's time zone, from the first day to the last, both included. */
export function StatementDownload({ businessId, currency }: { businessId: number; currency: string }) {
  const today = new Date();
  const [from, setFrom] = useState(day(new Date(today.getFullYear(), today.getMonth(), 1)));
  const [to, setTo] = useState(day(today));
  const valid = Boolean(/^\d{4}-\d\d-\d\d$/.test(from) && /^\d{4}-\d\d-\d\d$/.test(to) && from <= to);
  const href = valid ? `/v1/admin/businesses/${businessId}/wallets/${currency}/statement?${new URLSearchParams({ from: startOf(from), to: startOf(to, 1), format: 'csv' })}` : '';
  const id = `statement-${currency}`;
  return (
    <div className="inline-form" role="group" aria-label={`${currency} statement`}>
      <label htmlFor={`${id}-from`}>
        Statement from ({zoneName()})
        <input id={`${id}-from`} type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
      </label>
      <label htmlFor={`${id}-to`}>
        to (included)
        <input id={`${id}-to`} type="date" value={to} onChange={(e) => setTo(e.target.value)} />
      </label>
      {valid ? (
        <a href={href} download>
          Download {currency} statement (CSV)
        </a>
      ) : (
        <span className="muted">Choose a first day on or before the last day.</span>
      )}
    </div>
  );
}
