// Reconciliation with the processors' statements (docs/reconciliation.md): for one MID and UTC day, the totals
// of both sides per currency and the items per state, each item with its decision and who made it; an
// operator admin uploads the MID's statement file, acknowledges, reverses or adjusts an item with a reason,
// and a second one approves what waits for four eyes; the day's items as a CSV file.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap } from '../../api';
import type { Admin } from '../../api';
import { Link, navigate, useLocation } from '../../router';
import { useSession, can } from '../../session';
import { FormError, TextField } from '../../ui/forms';
import { LoadError, Loading, Money, Section } from '../../ui/parts';
import { DataTable } from '../../ui/table';
import { todayUtc, UTC_DAY, UTC_DAY_HINT } from '../../ui/values';

type Item = Admin['ReconciliationItem'];
type Action = 'acknowledge' | 'reverse' | 'adjust';

/** What an operator may do with an item not yet decided: acknowledge always; reverse or adjust where it fits. */
function actionsOf(item: Item): Action[] {
  if (item.state === 'matched' || item.resolution !== null) return [];
  const posted = item.collection_status === 'COMPLETED';
  if (item.state === 'reversed_externally' && posted) return ['reverse', 'acknowledge'];
  if ((item.state === 'amount_over' || item.state === 'amount_under') && posted) return ['adjust', 'acknowledge'];
  return ['acknowledge'];
}

const decisionOf = (i: Item) =>
  i.resolution === null ? '' : `${i.action}${i.resolution === 'awaiting_approval' ? ' (waits for a second operator)' : ''}${i.reason ? `: ${i.reason}` : ''}`;
const whoOf = (i: Item) => [i.requested_by, i.approved_by && `approved by ${i.approved_by}`].filter(Boolean).join(', ');

export function ReconciliationPage() {
  const { query } = useLocation();
  const askedMid = query.get('mid') ?? '';
  const askedDay = query.get('day') ?? todayUtc();
  const [mid, setMid] = useState(askedMid);
  const [day, setDay] = useState(askedDay);
  const valid = /^\d+$/.test(askedMid) && UTC_DAY.test(askedDay);
  const items = useQuery({
    queryKey: ['reconciliation', askedMid, askedDay],
    queryFn: async () =>
      (await unwrap(admin.GET('/v1/admin/mids/{mid_id}/reconciliation-items', { params: { path: { mid_id: Number(askedMid) }, query: { day: askedDay, limit: 500 } } }))).data,
    enabled: valid,
  });
  const show = (e: FormEvent) => {
    e.preventDefault();
    navigate(`/reconciliation?${new URLSearchParams({ mid, day })}`);
  };
  return (
    <>
      <h1>Reconciliation</h1>
      <p>
        A MID’s statements from its processor set against our records, line by line: for one UTC day, the totals of both sides and every item with its
        state and decision. Fixes never edit the past: a reversal or an adjustment is a new journal in the ledger.
      </p>
      <form onSubmit={show} aria-label="Reconciliation day" className="inline-form">
        <TextField label="MID" name="mid" inputMode="numeric" autoComplete="off" error={items.error} value={mid} onValue={setMid} />
        <TextField label="Day (UTC, yyyy-mm-dd)" name="day" inputMode="numeric" autoComplete="off" hint={UTC_DAY_HINT} error={items.error} value={day} onValue={setDay} />
        <button type="submit">Show</button>
      </form>
      {valid && <Upload midId={Number(askedMid)} />}
      {items.isPending && valid && <Loading what="the reconciliation items" />}
      {items.error && <LoadError error={items.error} />}
      {items.data && <Day midId={Number(askedMid)} day={askedDay} list={items.data} />}
    </>
  );
}

function Upload({ midId }: { midId: number }) {
  const queries = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const upload = useMutation({
    mutationFn: async (f: File) =>
      unwrap(admin.POST('/v1/admin/mids/{mid_id}/statements', { params: { path: { mid_id: midId } }, body: await f.text(), bodySerializer: (b: string) => b, headers: { 'Content-Type': 'text/csv' } })),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['reconciliation'] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (file) upload.mutate(file);
  };
  const taken = upload.data?.data;
  return (
    <form onSubmit={submit} aria-label="Upload a statement" className="inline-form">
      <label>
        Statement file (CSV, as the processor’s portal gives it){' '}
        <input type="file" name="statement" accept=".csv,text/csv" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
      </label>
      <button type="submit" disabled={!file || upload.isPending}>
        Upload statement
      </button>
      <FormError error={upload.error} />
      {taken && (
        <p role="status">
          {taken.created ? `Statement taken in: ${taken.statement.line_count} lines matched.` : 'This statement was taken in already: nothing was created.'}
        </p>
      )}
    </form>
  );
}

function Day({ midId, day, list }: { midId: number; day: string; list: Admin['ReconciliationItemsResponse']['data'] }) {
  const csv = `/v1/admin/mids/${midId}/reconciliation-items/export?${new URLSearchParams({ day })}`;
  return (
    <>
      <p className="downloads">
        <a href={csv} download>
          Download CSV
        </a>{' '}
        <span className="muted">of MID #{midId}’s items of {day}.</span>
      </p>
      {list.totals && (
        <Section title={`Totals for ${day} (UTC)`}>
          {list.totals.currencies.length > 0 && (
            <DataTable
              label="Totals per currency"
              rows={list.totals.currencies}
              rowKey={(c) => c.currency}
              columns={[
                { head: 'Currency', cell: (c) => c.currency },
                { head: 'The processor’s', num: true, cell: (c) => <Money amount={c.theirs_amount} currency={c.currency} /> },
                { head: 'Ours', num: true, cell: (c) => <Money amount={c.ours_amount} currency={c.currency} /> },
              ]}
            />
          )}
          <dl className="facts">
            {Object.entries(list.totals.states).map(([state, n]) => (
              <span key={state}>
                <dt>{state}</dt>
                <dd>{n}</dd>
              </span>
            ))}
          </dl>
        </Section>
      )}
      <Section title="Items">
        {list.items.length === 0 ? (
          <p>No item on this day.</p>
        ) : (
          <DataTable
            label="Reconciliation items"
            stacked
            rows={list.items}
            rowKey={(i) => i.id}
            columns={[
              { head: 'Reference', className: 'break', cell: (i) => i.reference },
              { head: 'State', cell: (i) => i.state },
              { head: 'Payment', className: 'break', cell: (i) => (i.gateway_reference ? <Link to={`/collections/${i.gateway_reference}`}>{i.gateway_reference}</Link> : '') },
              { head: 'Ours', num: true, cell: (i) => (i.ours_amount !== null && i.ours_currency ? <Money amount={i.ours_amount} currency={i.ours_currency} /> : '') },
              { head: 'Theirs', num: true, cell: (i) => (i.theirs_amount !== null && i.theirs_currency ? <Money amount={i.theirs_amount} currency={i.theirs_currency} /> : '') },
              { head: 'Decision', cell: decisionOf },
              { head: 'By', cell: whoOf },
              { head: 'Actions', cell: (i) => <Decide midId={midId} item={i} /> },
            ]}
          />
        )}
      </Section>
    </>
  );
}

function Decide({ midId, item }: { midId: number; item: Item }) {
  const { user } = useSession();
  const queries = useQueryClient();
  const [reason, setReason] = useState('');
  const path = { mid_id: midId, item_id: item.id };
  const done = () => queries.invalidateQueries({ queryKey: ['reconciliation'] });
  const resolve = useMutation({ mutationFn: (action: Action) => unwrap(admin.POST('/v1/admin/mids/{mid_id}/reconciliation-items/{item_id}/resolve', { params: { path }, body: { action, reason } })), onSuccess: done });
  const approve = useMutation({ mutationFn: () => unwrap(admin.POST('/v1/admin/mids/{mid_id}/reconciliation-items/{item_id}/approve', { params: { path } })), onSuccess: done });
  if (!user || !can(user, 'operate')) return null;
  if (item.resolution === 'awaiting_approval') {
    return (
      <>
        <button type="button" onClick={() => approve.mutate()} disabled={approve.isPending}>
          Approve
        </button>
        <FormError error={approve.error} />
      </>
    );
  }
  const actions = actionsOf(item);
  if (actions.length === 0) return null;
  return (
    <form onSubmit={(e) => e.preventDefault()} aria-label={`Decide item ${item.reference}`}>
      <TextField label="Reason" name="reason" error={resolve.error} value={reason} onValue={setReason} />
      {actions.map((a) => (
        <button key={a} type="button" onClick={() => resolve.mutate(a)} disabled={resolve.isPending || reason.trim().length < 3}>
          {a[0].toUpperCase() + a.slice(1)}
        </button>
      ))}
      <FormError error={resolve.error} shown={['reason']} />
    </form>
  );
}
