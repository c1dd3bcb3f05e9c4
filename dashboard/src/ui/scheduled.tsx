// Loosened guards of money out that wait for their notice (a wallet's raised or removed threshold or
// limit, a token's wider IP allowlist): what each becomes and when, who asked, and, for whoever may set
// the guard, a button that stops it (it sets the guard again to what it is, which withdraws the change).
import type { Admin } from '../api';
import { Money, Time } from './parts';

const WORDS: Record<Admin['ScheduledGuardChange']['field'], string> = {
  disbursement_limit: 'Largest disbursement',
  disbursement_daily_limit: 'Daily limit',
  disbursement_approval_threshold: 'Approval threshold',
  ip_allowlist: 'IP allowlist',
};

function valueOf(c: Admin['ScheduledGuardChange'], currency: string | undefined) {
  if (c.value === null) return c.field === 'ip_allowlist' ? 'no list' : c.field === 'disbursement_approval_threshold' ? 'none (no disbursement would wait for approval)' : 'none';
  if (Array.isArray(c.value)) return c.value.join(', ');
  return currency ? <Money amount={c.value} currency={currency} /> : String(c.value);
}

export function ScheduledChanges({ changes, currency, stop, stopping }: {
  changes: Admin['ScheduledGuardChange'][];
  currency?: string;
  /** stops one (for whoever may set the guard) */
  stop?: (field: Admin['ScheduledGuardChange']['field']) => void;
  stopping?: boolean;
}) {
  if (changes.length === 0) return null;
  return (
    <div className="notice" role="status" aria-label="Changes waiting for their notice">
      <p>
        Loosening a guard of money out waits for its notice, and every owner was emailed. Until then the setting above stays in force; setting it again
        (to what it is, or tighter) stops the change.
      </p>
      <ul>
        {changes.map((c) => (
          <li key={c.field}>
            {WORDS[c.field]} becomes {valueOf(c, currency)} on <Time at={c.effective_at} /> (asked by {c.requested_by}).{' '}
            {stop && (
              <button type="button" className="small" disabled={stopping} onClick={() => stop(c.field)}>
                Stop this change
              </button>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
