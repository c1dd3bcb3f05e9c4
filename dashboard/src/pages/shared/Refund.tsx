// A payment's Refunds section: what is refunded, each refund with its state (listAdminCollectionRefunds:
// reference, amount, state with why it waits or failed, the claim link of a refund the customer claims,
// when it was made), and the Refund form (createAdminRefund) for the roles the server lets refund: an
// amount (empty = everything still refundable), a merchant reference (a fresh one suggested) and an optional
// reason; the refund is sent only after its summary (amount, whole or part, fee) is confirmed. The API's
// refusals show at the field they concern; a short balance (INSUFFICIENT_FUNDS) shows at the amount.
// The list is read again after a refund is accepted, and every few seconds while a refund is under way.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { admin, ApiError, unwrap } from '../../api';
import type { Admin } from '../../api';
import { useCan } from '../../session';
import { FormError, TextField } from '../../ui/forms';
import { toMinor } from '../../../../src/domain/money';
import { amountMinorOf } from '../../ui/amounts';
import { ConfirmGroup, LoadError, Loading, Money, MoneyMinor, Section, Status, Time } from '../../ui/parts';
import { suggestedReference } from '../../ui/reference';
import { DataTable } from '../../ui/table';

/** How often the list is read again while a refund is not yet final: its state changes in the background. */
const UNDER_WAY_REFRESH_MS = 3000;
const FINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);
const WAITING: Record<NonNullable<Admin['RefundRecord']['pending_reason']>, string> = {
  awaiting_processor: 'waiting to be sent to the processor',
  outcome_unknown: "the processor's answer was lost; a status check is settling it",
};

/** Refusals about the money itself belong to the amount field, though the API names no field for them. */
const AMOUNT_CODES = new Set(['INSUFFICIENT_FUNDS']);

function atTheirField(error: unknown): unknown {
  if (error instanceof ApiError && AMOUNT_CODES.has(error.code) && error.fields.length === 0) {
    return new ApiError(error.status, error.code, error.message, [{ field: 'amount', message: error.message }]);
  }
  return error;
}

export function Refunds({ c }: { c: Admin['AdminCollection'] }) {
  const mayRefund = useCan('refund');
  const rest = c.request_amount - c.refunded_amount;
  return (
    <Section title="Refunds">
      <p>
        Refunded or being refunded: <Money amount={c.refunded_amount} currency={c.request_currency} />
        {c.transaction_status === 'COMPLETED' && (
          <>
            {' '}
            · still refundable: <Money amount={rest} currency={c.request_currency} />
          </>
        )}
      </p>
      <RefundList reference={c.gateway_reference} />
      {mayRefund && c.transaction_status === 'COMPLETED' && rest > 0 && <RefundForm c={c} />}
    </Section>
  );
}

type ListAnswer = { data: Admin['RefundRecord'][] };
const finals = (list: ListAnswer | undefined) => list?.data.filter((r) => FINAL.has(r.transaction_status)).length ?? 0;

function RefundList({ reference }: { reference: string }) {
  const queries = useQueryClient();
  const list = useQuery({
    queryKey: ['refunds', reference],
    queryFn: async () => {
      const before = queries.getQueryData<ListAnswer>(['refunds', reference]);
      const now = await unwrap(admin.GET('/v1/admin/collections/{gateway_reference}/refunds', { params: { path: { gateway_reference: reference } } }));
      // a refund ended: a failed or cancelled one gave its amount back, so the refunded amount above is read again
      if (before && finals(now) !== finals(before)) void queries.invalidateQueries({ queryKey: ['collection', reference] });
      return now;
    },
    refetchInterval: (q) => (q.state.data?.data.some((r) => !FINAL.has(r.transaction_status)) ? UNDER_WAY_REFRESH_MS : false),
  });
  if (list.isPending) return <Loading what="the refunds" />;
  if (list.error) return <LoadError error={list.error} retry={() => list.refetch()} />;
  if (list.data.data.length === 0) return <p>No refund of this payment yet.</p>;
  return (
    <DataTable
      stacked
      rows={list.data.data}
      rowKey={(r) => r.gateway_reference}
      columns={[
        {
          head: 'Reference',
          cell: (r) => (
            <>
              {r.merchant_reference}
              <br />
              <span className="muted small break">{r.gateway_reference}</span>
            </>
          ),
        },
        { head: 'Amount', num: true, cell: (r) => <Money amount={r.amount} currency={r.currency} /> },
        { head: 'State', cell: (r) => <RefundState r={r} /> },
        { head: 'Created', cell: (r) => <Time at={r.created_at} /> },
      ]}
    />
  );
}

/** The state, with why a refund waits or failed and, for one the customer claims, the link to give them. */
function RefundState({ r }: { r: Admin['RefundRecord'] }) {
  const why = r.pending_reason ? WAITING[r.pending_reason] : r.failure_reason;
  return (
    <>
      <Status status={r.transaction_status} />
      {why && <span className="small"> {why}</span>}
      {r.claim_url && (
        <>
          <br />
          <a href={r.claim_url} className="small">
            Claim link for the customer
          </a>
        </>
      )}
    </>
  );
}

/** What is still refundable, in minor units: worked out exactly, never as a difference of doubles. */
const refundableMinor = (c: Admin['AdminCollection']) => toMinor(c.request_amount) - toMinor(c.refunded_amount);

function RefundForm({ c }: { c: Admin['AdminCollection'] }) {
  const reference = c.gateway_reference;
  const rest = refundableMinor(c);
  const queries = useQueryClient();
  const [amount, setAmount] = useState('');
  const [merchantReference, setMerchantReference] = useState(() => suggestedReference('RFD'));
  const [reason, setReason] = useState('');
  // a refund is sent only from its summary: what will happen, then a second click
  const [reviewing, setReviewing] = useState(false);
  const edit = (set: (v: string) => void) => (v: string) => {
    set(v);
    setReviewing(false);
  };
  const refund = useMutation({
    mutationFn: () =>
      unwrap(
        admin.POST('/v1/admin/collections/{gateway_reference}/refunds', {
          params: { path: { gateway_reference: reference } },
          body: {
            ...(amount.trim() === '' ? {} : { amount: Number(amount.trim()) }),
            merchant_reference: merchantReference,
            ...(reason.trim() === '' ? {} : { reason }),
          },
        }),
      ),
    onSuccess: () => {
      // the summary goes before the form empties: an empty amount would read as "refund the whole" under a live Confirm button
      setReviewing(false);
      setAmount('');
      setMerchantReference(suggestedReference('RFD'));
      setReason('');
      return Promise.all([queries.invalidateQueries({ queryKey: ['collection', reference] }), queries.invalidateQueries({ queryKey: ['refunds', reference] })]);
    },
    onSettled: () => setReviewing(false),
  });
  const error = atTheirField(refund.error);
  const whole = amount.trim() === '';
  const asked = whole ? rest : amountMinorOf(amount);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    // an amount that is no amount, or more than is refundable, goes straight to the API, which refuses it at the field and changes nothing
    if (asked === null || asked > rest) refund.mutate();
    else {
      refund.reset();
      setReviewing(true);
    }
  };
  return (
    <form onSubmit={submit} aria-label="Refund" className="form-grid">
      <h3 className="wide">New refund</h3>
      <TextField
        label="Amount"
        name="amount"
        inputMode="decimal"
        error={error}
        hint={<>In {c.request_currency}. Leave empty to refund everything still refundable (<MoneyMinor minor={rest} currency={c.request_currency} />).</>}
        value={amount}
        onValue={edit(setAmount)}
      />
      <TextField label="Merchant reference" name="merchant_reference" error={error} required hint="Your own reference for the refund, filled in with a fresh one; sending the same one again never refunds twice." value={merchantReference} onValue={edit(setMerchantReference)} />
      <TextField label="Reason" name="reason" error={error} value={reason} onValue={edit(setReason)} />
      <div className="wide">
        <FormError error={error} shown={['amount', 'merchant_reference', 'reason']} />
        {refund.isSuccess && (
          <p role="status">
            Refund <code>{refund.data.data.gateway_reference}</code> accepted: {refund.data.data.transaction_status}.
          </p>
        )}
        {reviewing && asked !== null ? (
          <RefundSummary c={c} asked={asked} whole={whole || asked === rest} busy={refund.isPending} confirm={() => refund.mutate()} change={() => setReviewing(false)} />
        ) : (
          <button type="submit" disabled={refund.isPending}>
            Review refund
          </button>
        )}
      </div>
    </form>
  );
}

/** What the refund will do, before it is sent: how much of what, whole or part, the fee, where the money comes from. */
function RefundSummary({ c, asked, whole, busy, confirm, change }: { c: Admin['AdminCollection']; asked: bigint; whole: boolean; busy: boolean; confirm: () => void; change: () => void }) {
  const cur = c.request_currency;
  const rest = refundableMinor(c);
  return (
    <ConfirmGroup label="Confirm the refund" confirmText="Confirm refund" busy={busy} confirm={confirm} change={change}>
      <p>
        {whole ? (
          <>
            Refund the <strong>whole</strong> of what is still refundable: <strong><MoneyMinor minor={asked} currency={cur} /></strong>
            {c.refunded_amount > 0 ? <> (of the <Money amount={c.request_amount} currency={cur} /> payment)</> : ' (the whole payment)'}.
          </>
        ) : (
          <>
            Refund <strong>part</strong> of the payment: <strong><MoneyMinor minor={asked} currency={cur} /></strong> of the <MoneyMinor minor={rest} currency={cur} /> still refundable;{' '}
            <MoneyMinor minor={rest - asked} currency={cur} /> stays refundable.
          </>
        )}
      </p>
      <p>
        A refund has no fee of its own; {c.transaction_fee > 0 ? <>the payment&apos;s fee (<Money amount={c.transaction_fee} currency={c.account_currency} />) is not given back.</> : 'this payment had no fee.'} The
        money is held from the {c.account_currency} wallet&apos;s available balance at once and goes to the customer through the processor that took the payment.
      </p>
    </ConfirmGroup>
  );
}
