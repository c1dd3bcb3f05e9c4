// Disbursements: the list (an operator's over every business, a merchant's over its own), its status
// filter kept in the address so a link or a reload keeps it (the approval queue is
// `?status=PENDING_APPROVAL`), cards on a phone, and its "Download CSV" (exportAdminDisbursements, with the
// same filter); and one disbursement with who asked and who decided and its timeline. An owner of the
// business sees Approve (with their authenticator's code) and Reject on one waiting for approval: the
// owner who asked for it may only reject it, and the server refuses an approval by the holder of the
// secret of the API token that asked, or by an owner of less than the waiting period (four eyes need two
// people), each in its own words. A merchant's owners also see New disbursement
// (merchant/NewDisbursement.tsx).
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap, unwrapPage } from '../../api';
import type { Admin } from '../../api';
import { Link, navigate, useLocation } from '../../router';
import { SESSION_KEY, useCan, useSession } from '../../session';
import { FormError, TextField } from '../../ui/forms';
import { Pager, useCursorList } from '../../ui/paging';
import { ConfirmGroup, LoadError, Loading, Money, MoneyMinor, Section, Status, Time } from '../../ui/parts';
import { toMinor } from '../../../../src/domain/money';
import { DisbursementsCsvLink } from '../../ui/downloads';
import { DataTable } from '../../ui/table';

type Disbursement = Admin['AdminDisbursement'];
type Status = Admin['DisbursementStatus'];
const STATUSES: Status[] = ['PENDING_APPROVAL', 'PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED', 'REVERSED'];
const EVENTS: Record<Admin['DisbursementTimelineEntry']['event'], string> = {
  requested: 'Asked for',
  approved: 'Approved',
  rejected: 'Rejected',
  state_changed: 'Became',
};

/** `businessId`: a merchant's own business (the server allows no other). */
export function DisbursementsPage({ base, businessId }: { base: string; businessId?: number }) {
  const { query } = useLocation();
  const raw = query.get('status');
  const status = STATUSES.find((s) => s === raw);
  const operator = businessId === undefined;
  const mayDisburse = useCan('disburse') && !operator;
  const { list, pages } = useCursorList(['disbursements', businessId ?? 'all', status ?? 'any'], (cursor) =>
    unwrapPage(admin.GET('/v1/admin/disbursements', { params: { query: { business_id: businessId, status, cursor } } })),
  );
  const title = status === 'PENDING_APPROVAL' ? 'Disbursements waiting for approval' : 'Disbursements';
  return (
    <>
      <h1>{title}</h1>
      {mayDisburse && (
        <p>
          <Link to={`${base}/new`} className="button">
            New disbursement
          </Link>
        </p>
      )}
      <form aria-label="Filter disbursements" className="filters" onSubmit={(e) => e.preventDefault()}>
        <label htmlFor="disbursement-status">Status</label>
        <select id="disbursement-status" value={status ?? ''} onChange={(e) => navigate(e.target.value ? `${base}?status=${e.target.value}` : base)}>
          <option value="">Any</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s === 'PENDING_APPROVAL' ? 'Waiting for approval' : s}
            </option>
          ))}
        </select>
      </form>
      <DisbursementsCsvLink businessId={businessId} status={status} />
      {list.isPending && <Loading what="disbursements" />}
      {list.error && <LoadError error={list.error} retry={() => list.refetch()} />}
      {list.data && list.data.items.length === 0 && <p>No disbursements{status ? ` in ${status}` : ''}.</p>}
      {list.data && list.data.items.length > 0 && (
        <DataTable
          label="Disbursements found"
          cards
          rows={list.data.items}
          rowKey={(d) => d.gateway_reference}
          columns={[
            { head: 'Reference', cell: (d) => <Link to={`${base}/${d.gateway_reference}`}>{d.merchant_reference}</Link> },
            ...(operator ? [{ head: 'Business', cell: (d: Disbursement) => d.business_name }] : []),
            { head: 'Amount', num: true, lead: true, cell: (d) => <Money amount={d.amount} currency={d.currency} /> },
            { head: 'Status', lead: true, cell: (d) => <Status status={d.transaction_status} /> },
            { head: 'Payee', cell: (d) => `${d.account_name} · ${d.account_number}` },
            { head: 'Asked', cell: (d) => <Time at={d.created_at} /> },
          ]}
        />
      )}
      <Pager pages={pages} total={list.data?.total} />
    </>
  );
}

export function DisbursementPage({ reference }: { reference: string }) {
  const one = useQuery({
    queryKey: ['disbursement', reference],
    queryFn: () => unwrap(admin.GET('/v1/admin/disbursements/{disbursement_reference}', { params: { path: { disbursement_reference: reference } } })),
  });
  if (one.isPending) return <Loading what="the disbursement" />;
  if (one.error) return <LoadError error={one.error} retry={() => one.refetch()} list={{ to: '/disbursements', name: 'the disbursements' }} />;
  const d = one.data.data;
  return (
    <>
      <h1>
        Disbursement <code>{d.gateway_reference}</code>
      </h1>
      <Section title="Payout">
        <dl className="pairs">
          <dt>Status</dt>
          <dd>
            <Status status={d.transaction_status} /> {d.failure_reason ?? d.message}
          </dd>
          <dt>Amount</dt>
          <dd>
            <Money amount={d.amount} currency={d.currency} /> (fee <Money amount={d.fee} currency={d.currency} />)
          </dd>
          <dt>Payee</dt>
          <dd>
            {d.account_name} · {d.payment_method === 'BANK' ? `bank ${d.bank_code ?? ''} account ` : ''}
            {d.account_number}
          </dd>
          <dt>Merchant reference</dt>
          <dd>{d.merchant_reference}</dd>
          <dt>Business</dt>
          <dd>{d.business_name}</dd>
          <dt>Asked for by</dt>
          <dd>{d.requested_by ? d.requested_by.email : 'an API token'}</dd>
          <dt>Decided by</dt>
          <dd>{d.decided_by ? d.decided_by.email : d.transaction_status === 'PENDING_APPROVAL' ? 'nobody yet' : 'no decision'}</dd>
        </dl>
      </Section>
      {d.transaction_status === 'PENDING_APPROVAL' && <Approval d={d} />}
      <Section title="Timeline">
        <DataTable
          stacked
          rows={d.timeline}
          rowKey={(e) => `${e.at} ${e.event} ${e.sequence ?? ''}`}
          columns={[
            { head: 'At', cell: (e) => <Time at={e.at} /> },
            { head: 'Event', cell: (e) => `${EVENTS[e.event]} ${e.transaction_status}` },
            { head: 'By', cell: (e) => e.actor ?? 'the service' },
            { head: 'Webhook', cell: (e) => (e.delivery ? `#${e.sequence} ${e.delivery.replace('_', ' ')}` : '') },
          ]}
        />
      </Section>
    </>
  );
}

/**
 * Approve (with the owner's current authenticator code) and Reject, for an owner of the business. Rejecting
 * keeps the money in, so any owner may; approving needs a second person, so the owner who asked may not.
 */
function Approval({ d }: { d: Admin['AdminDisbursementDetail'] }) {
  const { user } = useSession();
  const queries = useQueryClient();
  const [code, setCode] = useState('');
  // an approval is sent only from its summary: what leaves the wallet, to whom, then a second click
  const [reviewing, setReviewing] = useState(false);
  const path = { disbursement_reference: d.gateway_reference };
  // the menu's badge (the session's count) and the overview's counts change with the decision
  const done = () => {
    for (const queryKey of [['disbursement', d.gateway_reference], SESSION_KEY, ['overview']]) void queries.invalidateQueries({ queryKey });
  };
  const approve = useMutation({
    mutationFn: () => unwrap(admin.POST('/v1/admin/disbursements/{disbursement_reference}/approve', { params: { path }, body: { code: code.trim() } })),
    // a code is good once: whatever the answer, the next try wants the next one
    onSettled: () => {
      setCode('');
      setReviewing(false);
    },
    onSuccess: done,
  });
  const reject = useMutation({
    mutationFn: () => unwrap(admin.POST('/v1/admin/disbursements/{disbursement_reference}/reject', { params: { path }, body: {} })),
    onSuccess: done,
  });
  const owner = user.role === 'merchant_owner' && user.business_id === d.business_id;
  const mine = d.requested_by?.user_id === user.id;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    // without a code there is nothing to confirm: the API says what is missing, at the field
    if (code.trim() === '') approve.mutate();
    else {
      approve.reset();
      setReviewing(true);
    }
  };
  const busy = approve.isPending || reject.isPending;
  return (
    <Section title="Approval">
      <p>
        Waits for an owner's approval until <Time at={d.approval_expires_at ?? d.created_at} />; nobody deciding by then cancels it, and nobody can approve it after.
      </p>
      {owner && (
        <p>
          Four eyes need two people: an owner approves with the code of their authenticator app, and not a disbursement they asked for, nor one asked for by an API token
          whose secret they created or last regenerated, nor any in their first days as an owner. Any owner may reject one.
        </p>
      )}
      {owner && mine && <p>You asked for this disbursement: another owner must approve it. You may reject it.</p>}
      {owner && !mine && !user.totp_enabled && (
        <p>
          Approving needs a code from your authenticator app. <Link to="/account">Set one up in Account</Link> first.
        </p>
      )}
      {owner && !mine && user.totp_enabled && (
        <form onSubmit={submit} aria-label="Approve" className="form-grid">
          <TextField
            label="Authenticator code"
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            hint="The 6-digit code your authenticator app shows now."
            error={approve.error}
            value={code}
            onValue={(v) => {
              setCode(v);
              setReviewing(false);
            }}
          />
          <div className="wide">
            <FormError error={approve.error} shown={['code']} />
            {reviewing ? (
              <ApprovalSummary d={d} busy={busy} confirm={() => approve.mutate()} change={() => setReviewing(false)} />
            ) : (
              <button type="submit" disabled={busy}>
                Approve
              </button>
            )}
          </div>
        </form>
      )}
      {owner && (
        <p>
          <button type="button" className="secondary" disabled={approve.isPending || reject.isPending} onClick={() => reject.mutate()}>
            Reject
          </button>
        </p>
      )}
      <FormError error={reject.error} />
    </Section>
  );
}

/** What approving will do, before it is sent: the amount to the payee, the fee, what leaves the wallet (summed exactly). */
function ApprovalSummary({ d, busy, confirm, change }: { d: Admin['AdminDisbursementDetail']; busy: boolean; confirm: () => void; change: () => void }) {
  const payee = `${d.account_name} (${d.payment_method === 'BANK' ? `bank ${d.bank_code ?? ''} account ` : 'phone '}${d.account_number})`;
  return (
    <ConfirmGroup label="Confirm the approval" confirmText="Confirm approval" busy={busy} confirm={confirm} change={change}>
      <p>
        Approve paying <strong><Money amount={d.amount} currency={d.currency} /></strong> to <strong>{payee}</strong>, reference {d.merchant_reference}. The fee is{' '}
        <Money amount={d.fee} currency={d.currency} />, so <strong><MoneyMinor minor={toMinor(d.amount) + toMinor(d.fee)} currency={d.currency} /></strong> leaves the {d.currency} wallet. Once approved it
        goes to the processor and can no longer be rejected.
      </p>
    </ConfirmGroup>
  );
}
