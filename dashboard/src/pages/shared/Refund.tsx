// The Refund button of a payment's page (createAdminRefund): an amount (empty = everything still
// refundable), a merchant reference and an optional reason, for the roles the server lets refund. The
// API's refusals show at the field they concern; a short balance (INSUFFICIENT_FUNDS) shows at the amount.
// There is no admin operation that lists a collection's refunds yet, so the page shows the collection's
// refunded_amount (in flight or completed), not each refund's state.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { admin, ApiError, unwrap } from '../../api';
import type { Admin } from '../../api';
import { useCan } from '../../session';
import { FormError, TextField } from '../../ui/forms';
import { Money, Section } from '../../ui/parts';

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
      {mayRefund && c.transaction_status === 'COMPLETED' && rest > 0 && <RefundForm reference={c.gateway_reference} />}
    </Section>
  );
}

function RefundForm({ reference }: { reference: string }) {
  const queries = useQueryClient();
  const [amount, setAmount] = useState('');
  const [merchantReference, setMerchantReference] = useState('');
  const [reason, setReason] = useState('');
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
      setAmount('');
      setMerchantReference('');
      setReason('');
      return queries.invalidateQueries({ queryKey: ['collection', reference] });
    },
  });
  const error = atTheirField(refund.error);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    refund.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Refund" className="form-grid">
      <TextField label="Amount" name="amount" inputMode="decimal" error={error} hint="Leave empty to refund everything still refundable." value={amount} onValue={setAmount} />
      <TextField label="Merchant reference" name="merchant_reference" error={error} required value={merchantReference} onValue={setMerchantReference} />
      <TextField label="Reason" name="reason" error={error} value={reason} onValue={setReason} />
      <div className="wide">
        <FormError error={error} shown={['amount', 'merchant_reference', 'reason']} />
        {refund.isSuccess && (
          <p role="status">
            Refund <code>{refund.data.data.gateway_reference}</code> accepted: {refund.data.data.transaction_status}.
          </p>
        )}
        <button type="submit" disabled={refund.isPending}>
          Refund
        </button>
      </div>
    </form>
  );
}
