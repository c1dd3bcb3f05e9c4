// File downloads from the admin API: the collections export and a wallet's statement, as CSV. The dashboard
// signs in with a session cookie, which a plain link carries by itself, so each is a link the browser saves
// (the API answers `Content-Disposition: attachment`); no file is built in the page.
import { useState } from 'react';
import type { Search } from './collections';

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
  const query = q.toString();
  return (
    <p className="downloads">
      <a href={`/v1/admin/exports/collections${query ? `?${query}` : ''}`} download>
        Download CSV
      </a>{' '}
      <span className="muted">
        of every collection these filters find (times in UTC){unapplied && '; the gateway reference and customer searches are not applied to the file'}.
      </span>
    </p>
  );
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/** A wallet's statement for a period of whole UTC days, from the first day to the last, both included. */
export function StatementDownload({ businessId, currency }: { businessId: number; currency: string }) {
  const today = new Date();
  const [from, setFrom] = useState(day(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1))));
  const [to, setTo] = useState(day(today));
  const end = to ? day(new Date(Date.parse(`${to}T00:00:00Z`) + 86_400_000)) : '';
  const valid = Boolean(from && to && from <= to);
  const href = `/v1/admin/businesses/${businessId}/wallets/${currency}/statement?${new URLSearchParams({ from: `${from}T00:00:00Z`, to: `${end}T00:00:00Z`, format: 'csv' })}`;
  const id = `statement-${currency}`;
  return (
    <div className="inline-form" role="group" aria-label={`${currency} statement`}>
      <label htmlFor={`${id}-from`}>
        Statement from (UTC)
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
