// File downloads from the admin API: the collections and disbursements exports, as CSV (a wallet's statement
// has its own page, pages/shared/Statement.tsx). The dashboard
// signs in with a session cookie, which a plain link carries by itself, so each is a link the browser saves
// (the API answers `Content-Disposition: attachment`); no file is built in the page.
import type { ReactNode } from 'react';
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
  put('held', search.held ? 'true' : undefined);
  const unapplied = Boolean(search.gateway_reference || search.account_number);
  return (
    <ExportLink path="/v1/admin/exports/collections" query={q}>
      of every collection these filters find{search.held ? ' (held only)' : ''} (times in UTC){unapplied && '; the gateway reference and customer searches are not applied to the file'}.
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
