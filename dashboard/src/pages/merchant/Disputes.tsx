// The merchant's card disputes (docs/contract/disputes.md): what the customers' banks claim back, with the
// countdown to each deadline, and for owners Accept, which asks first: the whole amount or a part of it,
// with the message to the processor (acceptAdminDispute, the merchant API's acceptDispute from the dashboard).
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap } from '../../api';
import { useCan } from '../../session';
import { FormError, TextField } from '../../ui/forms';
import { Money, Section } from '../../ui/parts';
import { DisputeList } from '../shared/Disputes';
import type { Dispute } from '../shared/Disputes';

export function Disputes({ businessId }: { businessId: number }) {
  const mayAccept = useCan('acceptDisputes');
  return (
    <>
      <h1>Disputes</h1>
      <p>
        A customer&apos;s bank claims a card payment back. The amount is held from your wallet while the dispute is open. Answer by the deadline: without an answer the
        processor accepts the dispute for you and the amount is debited.
      </p>
      <Section title="Your disputes">
        <DisputeList businessId={businessId} action={mayAccept ? (d, past) => (d.status === 'needs_response' && !past ? <Accept dispute={d} /> : null) : undefined} />
      </Section>
    </>
  );
}

/** Accept asks first: the whole amount or a part of it, and the message the processor gets. */
function Accept({ dispute }: { dispute: Dispute }) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="small danger" onClick={() => setAsking(true)}>
        Accept
      </button>
    );
  }
  return <AcceptForm dispute={dispute} onDone={() => setAsking(false)} />;
}

function AcceptForm({ dispute, onDone }: { dispute: Dispute; onDone: () => void }) {
  const queries = useQueryClient();
  const [amount, setAmount] = useState('');
  const [message, setMessage] = useState('');
  const accept = useMutation({
    mutationFn: () =>
      unwrap(
        admin.POST('/v1/admin/disputes/{dispute_reference}/accept', {
          params: { path: { dispute_reference: dispute.gateway_reference } },
          body: amount.trim() === '' ? { message } : { amount: Number(amount), message },
        }),
      ),
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: ['disputes'] });
      onDone();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    accept.mutate();
  };
  return (
    <form onSubmit={submit} aria-label={`Accept ${dispute.gateway_reference}`} className="confirm">
      <p>
        Accept this dispute? The customer&apos;s bank gets the amount back and it is debited from your wallet: all of <Money amount={dispute.amount} currency={dispute.currency} />,
        or only the part you enter (the rest of the hold returns to your available balance).
      </p>
      <TextField label="Amount to accept, optional" name="amount" inputMode="decimal" error={accept.error} hint="Leave empty to accept the whole amount." value={amount} onValue={setAmount} />
      <TextField label="Message to the processor" name="message" required error={accept.error} value={message} onValue={setMessage} />
      <FormError error={accept.error} shown={['amount', 'message']} />
      <div className="actions">
        <button type="submit" className="small danger" disabled={accept.isPending}>
          Confirm acceptance
        </button>
        <button type="button" className="small" onClick={onDone} disabled={accept.isPending}>
          Cancel
        </button>
      </div>
    </form>
  );
}
