// The business's webhook deliveries, newest first: where each notification stands, a link to its
// payment and, for roles that may, a re-send of the payment's latest notification. On a phone each is a
// card with the payment, its status, the delivery and the re-send first.
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap, unwrapPage } from '../../api';
import type { Admin } from '../../api';
import { Link } from '../../router';
import { useCan } from '../../session';
import { FormError, SelectField } from '../../ui/forms';
import { Pager, useCursorList } from '../../ui/paging';
import { LoadError, Loading, Notice, Time } from '../../ui/parts';
import { DataTable } from '../../ui/table';

type Delivery = Admin['Delivery'];
type State = Delivery['state'];
const STATES: readonly ('' | State)[] = ['', 'delivered', 'retrying', 'gave_up'];
const STATE_TEXT: Record<State, string> = { delivered: 'delivered', retrying: 'retrying', gave_up: 'gave up' };

export function WebhookDeliveries({ businessId }: { businessId: number }) {
  const [state, setState] = useState<'' | State>('');
  const queries = useQueryClient();
  const mayResend = useCan('resend');
  const { list, pages } = useCursorList(['business-deliveries', businessId, state], (cursor) =>
    unwrapPage(admin.GET('/v1/admin/businesses/{business_id}/deliveries', { params: { path: { business_id: businessId }, query: { state: state || undefined, cursor, per_page: 25 } } })),
  );
  const resend = useMutation({
    mutationFn: (reference: string) => unwrap(admin.POST('/v1/admin/collections/{gateway_reference}/notify', { params: { path: { gateway_reference: reference } } })),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['business-deliveries', businessId] }),
  });
  return (
    <>
      <h1>Webhook deliveries</h1>
      <p>Every notification sent to your webhook, newest first. Fix your endpoint, then re-send what gave up.</p>
      <SelectField label="State" name="state" error={null} options={STATES} value={state} onValue={(v) => setState(v as '' | State)} />
      {resend.isSuccess && <Notice>Re-send of {resend.variables} queued: its latest notification goes out again with the same webhook-id.</Notice>}
      <FormError error={resend.error} />
      {list.isPending && <Loading what="the deliveries" />}
      {list.error && <LoadError error={list.error} retry={() => list.refetch()} />}
      {list.data && list.data.items.length === 0 && <p>No notification {state ? `in state ${STATE_TEXT[state]}` : 'yet'}.</p>}
      {list.data && list.data.items.length > 0 && (
        <DataTable
          label="Deliveries"
          cards
          rows={list.data.items}
          rowKey={(d) => d.id}
          columns={[
            { head: 'Created', cell: (d) => <Time at={d.created_at} /> },
            { head: 'About', lead: true, cell: (d) => <Subject d={d} /> },
            { head: 'Status', lead: true, cell: (d) => d.transaction_status },
            { head: 'Delivery', lead: true, cell: (d) => <DeliveryState d={d} /> },
            { head: 'Attempts', num: true, cell: (d) => d.attempts },
            { head: 'Last answer', cell: (d) => d.last_error ?? (d.last_http_status === null ? '—' : `HTTP ${d.last_http_status}`) },
            ...(mayResend
              ? [{ head: 'Re-send', hidden: true, lead: true, cell: (d: Delivery) => (d.subject === 'collection' ? <ResendButton d={d} busy={resend.isPending} onResend={() => resend.mutate(d.gateway_reference)} /> : null) }]
              : []),
          ]}
        />
      )}
      <Pager pages={pages} total={list.data?.total} />
    </>
  );
}

/** The payment, refund, disbursement or payment link a notification is about, linked to its page where it has one. */
function Subject({ d }: { d: Delivery }) {
  if (d.subject === 'collection') return <Link to={`/payments/${d.gateway_reference}`}>{d.gateway_reference}</Link>;
  if (d.subject === 'disbursement') return <>disbursement <Link to={`/disbursements/${d.gateway_reference}`}>{d.gateway_reference}</Link></>;
  if (d.subject === 'payment_link') return <>payment link <Link to="/payment-links">{d.gateway_reference}</Link></>;
  return <>refund {d.gateway_reference}</>;
}

function DeliveryState({ d }: { d: Delivery }) {
  if (d.state === 'delivered') return <>delivered <Time at={d.delivered_at} /></>;
  if (d.state === 'retrying') return <>retrying{d.next_attempt_at && <>, next <Time at={d.next_attempt_at} /></>}</>;
  return <>gave up</>;
}

function ResendButton({ d, busy, onResend }: { d: Delivery; busy: boolean; onResend: () => void }) {
  return (
    <button type="button" disabled={busy} onClick={onResend} aria-label={`Re-send webhook of ${d.gateway_reference}`}>
      Re-send
    </button>
  );
}
