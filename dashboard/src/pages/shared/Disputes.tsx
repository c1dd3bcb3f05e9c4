// Card disputes (docs/contract/disputes.md), one list for the merchant portal and the operator console: each
// dispute with its status, amount, stage, reason and a live countdown to its deadline (hours and minutes
// left, then "past deadline"), of one status when chosen; the merchant's page adds Accept
// (merchant/Disputes.tsx), the operator's the business.
import { useEffect, useState } from 'react';
import type { ReactNode } from 'react';
import { admin, unwrapPage } from '../../api';
import type { Admin } from '../../api';
import { Pager, useCursorList } from '../../ui/paging';
import { LoadError, Loading, Money, Status, Time } from '../../ui/parts';
import { DataTable } from '../../ui/table';

export type Dispute = Admin['AdminDispute'];
type DisputeStatus = Dispute['status'];

const STATUSES: DisputeStatus[] = ['needs_response', 'under_review', 'won', 'lost', 'accepted'];

/** The time now, again every `everyMs`: what a countdown is counted from. */
function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/** What is left of a deadline, in whole hours and minutes ("15 h 59 min left"), or "past deadline". */
export function timeLeft(deadline: string, now: number): string {
  const ms = Date.parse(deadline) - now;
  if (ms <= 0) return 'past deadline';
  const minutes = Math.floor(ms / 60_000);
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min left`;
}

/** The deadline, and while the dispute waits for its merchant the countdown to it. */
function Deadline({ d, now }: { d: Dispute; now: number }) {
  return (
    <>
      <Time at={d.deadline} />
      {d.status === 'needs_response' && (
        <>
          <br />
          <strong className="countdown">{timeLeft(d.deadline, now)}</strong>
        </>
      )}
    </>
  );
}

export function DisputeList({ businessId, action }: { businessId?: number; action?: (d: Dispute, past: boolean) => ReactNode }) {
  const [status, setStatus] = useState<DisputeStatus | ''>('');
  const now = useNow(30_000);
  const { list, pages } = useCursorList(['disputes', businessId, status], (cursor) =>
    unwrapPage(admin.GET('/v1/admin/disputes', { params: { query: { business_id: businessId, status: status || undefined, cursor, per_page: 25 } } })),
  );
  return (
    <>
      <label className="filter">
        Status{' '}
        <select value={status} onChange={(e) => setStatus(e.target.value as DisputeStatus | '')}>
          <option value="">Any</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      {list.isPending && <Loading what="disputes" />}
      {list.error && <LoadError error={list.error} retry={() => list.refetch()} />}
      {list.data && list.data.items.length === 0 && <p>No dispute{status && ` ${status}`}.</p>}
      {list.data && list.data.items.length > 0 && (
        <DataTable
          label="Disputes"
          cards
          rows={list.data.items}
          rowKey={(d) => d.gateway_reference}
          columns={[
            { head: 'Dispute', lead: true, cell: (d) => <>{d.gateway_reference}<br /><span className="muted">payment {d.collection_gateway_reference}</span></> },
            ...(businessId === undefined ? [{ head: 'Business', cell: (d: Dispute) => d.business_name }] : []),
            { head: 'Status', lead: true, cell: (d) => <Status status={d.status} /> },
            { head: 'Amount', num: true, lead: true, cell: (d) => <Money amount={d.amount} currency={d.currency} /> },
            { head: 'Stage', cell: (d) => d.stage },
            { head: 'Reason', cell: (d) => d.reason ?? '' },
            { head: 'Deadline', cell: (d) => <Deadline d={d} now={now} /> },
            ...(action ? [{ head: 'Action', hidden: true, cell: (d: Dispute) => action(d, Date.parse(d.deadline) <= now) }] : []),
          ]}
        />
      )}
      <Pager pages={pages} total={list.data?.total} />
    </>
  );
}
