// Small display pieces shared by the pages: loading and error states, money, times (from time.tsx) and statuses.
import type { ReactNode } from 'react';
import { moneyText } from '../../../src/domain/currencies';
import { ApiError } from '../api';
import { Link } from '../router';

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}

/**
 * A failed read, with what to do about it. Not found: a link back to `list` (or the navigation), and no
 * "Try again", which cannot find what is not there; a refused value: correct it; anything else: try again.
 */
export function LoadError({ error, retry, list }: { error: unknown; retry?: () => void; list?: { to: string; name: string } }) {
  const message = error instanceof ApiError ? error.message : String(error);
  const code = error instanceof ApiError ? error.code : '';
  const advice =
    code === 'NOT_FOUND' ? (
      list ? (
        <>
          Check the address, or go back to <Link to={list.to}>{list.name}</Link>.
        </>
      ) : (
        'Check the address, or use the navigation above.'
      )
    ) : code === 'VALIDATION_ERROR' ? (
      'Correct it and try again.'
    ) : (
      'Try again in a moment.'
    );
  return (
    <div role="alert" className="error">
      <p>
        {message}. {advice}
      </p>
      {retry && code !== 'NOT_FOUND' && code !== 'VALIDATION_ERROR' && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Notice({ children }: { children: ReactNode }) {
  return (
    <p role="status" className="notice">
      {children}
    </p>
  );
}

/** A JSON amount with its currency as the e-mails and the hosted pages write it (moneyText): grouped, in the currency's own minor unit ("25,000 UGX", "12.50 USD"). */
export function Money({ amount, currency }: { amount: number; currency: string }) {
  return <span className="money">{moneyText(BigInt(Math.round(amount * 100)), currency)}</span>;
}

/** An amount already in minor units (a sum or a difference worked out exactly, as bigint). */
export function MoneyMinor({ minor, currency }: { minor: bigint; currency: string }) {
  return <span className="money">{moneyText(minor, currency)}</span>;
}

/** A money movement's summary before anything is sent: what will happen (`children`), then confirm or change. */
export function ConfirmGroup({ label, confirmText, busy, confirm, change, children }: { label: string; confirmText: string; busy: boolean; confirm: () => void; change: () => void; children: ReactNode }) {
  return (
    <div role="group" aria-label={label} className="confirm">
      {children}
      <button type="button" onClick={confirm} disabled={busy}>
        {confirmText}
      </button>{' '}
      <button type="button" className="secondary" onClick={change} disabled={busy}>
        Change
      </button>
    </div>
  );
}

/** Every page's times: in the viewer's time zone, UTC on hover (ui/time.tsx). */
export { Time } from './time';

export function Status({ status }: { status: string }) {
  return <span className={`status status-${status.toLowerCase()}`}>{status}</span>;
}

export function Section({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <section className="card" aria-label={title}>
      <header className="card-head">
        <h2>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}
