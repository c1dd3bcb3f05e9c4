// A refund held for an operator (the processor's answer settled nothing by itself, e.g. M-Pesa's "already
// reversed"): its mark on the refunds list with why, the decision once made, and the operator admin's
// decision (resolveHeldRefund), taken once after checking with the processor whether the customer has the
// money back.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap } from '../../api';
import type { Admin } from '../../api';
import { FormError } from '../../ui/forms';
import { Section, Time } from '../../ui/parts';
import { DecisionFields } from './Decision';
import type { Outcome } from './Decision';

type Refund = Admin['AdminRefundRecord'];

/** The mark of a held refund with its reason, or the operator's decision on it; nothing for any other refund. */
export function HeldMark({ refund }: { refund: Refund }) {
  const r = refund.resolution;
  if (refund.held_reason) {
    return (
      <span className="held">
        <span className="status status-held">Held for operator</span> <span className="small">{refund.held_reason}</span>
      </span>
    );
  }
  if (!r) return null;
  return (
    <span className="small">
      Resolved as <strong>{r.outcome}</strong> by {r.resolved_by} at <Time at={r.resolved_at} />: {r.note}
    </span>
  );
}

/** The decision on one held refund: outcome, a note for the audit log, a confirmation; `done` with the refund as it now is. */
export function ResolveHeldRefund({ refund, done }: { refund: Refund; done: (resolved: Refund) => void }) {
  const queries = useQueryClient();
  const [outcome, setOutcome] = useState<Outcome | ''>('');
  const [note, setNote] = useState('');
  const reference = refund.gateway_reference;
  const resolve = useMutation({
    mutationFn: (decided: Outcome) =>
      unwrap(admin.POST('/v1/admin/refunds/{refund_reference}/resolve-held', { params: { path: { refund_reference: reference } }, body: { outcome: decided, note } })),
    onSuccess: async (resolved) => {
      await queries.invalidateQueries({ queryKey: ['all-refunds'] });
      await queries.invalidateQueries({ queryKey: ['overview'] });
      done(resolved.data);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!outcome) return;
    const effect = outcome === 'COMPLETED' ? "pay the refund's hold out and notify a completion" : 'return the hold to the merchant\'s wallet and notify a failure';
    if (window.confirm(`Resolve refund ${reference} as ${outcome}? This will ${effect}, and cannot be undone.`)) resolve.mutate(outcome);
  };
  return (
    <Section title="Resolve held refund">
      <form onSubmit={submit} aria-label="Resolve held refund" className="form-grid">
        <p className="wide">
          Refund <strong>{refund.merchant_reference}</strong> ({reference}) is held: {refund.held_reason} Check with the processor whether the
          customer has the money back, then decide once.
        </p>
        <DecisionFields outcome={outcome} onOutcome={setOutcome} note={note} onNote={setNote} error={resolve.error} />
        <div className="wide">
          <FormError error={resolve.error} shown={['note', 'outcome']} />
          <button type="submit" disabled={!outcome || resolve.isPending}>
            Resolve held refund
          </button>
        </div>
      </form>
    </Section>
  );
}
