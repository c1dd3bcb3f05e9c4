// A live collection's request to its processor, for operators: its state, its references (ours and the
// processor's, to look the payment up there), why it is held, and the
// operator admin's decision on a held payment (resolveHeldCollection), taken once after checking with
// the processor what the customer really paid.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap } from '../../api';
import type { Admin } from '../../api';
import { useCan } from '../../session';
import { FormError } from '../../ui/forms';
import { Section, Time } from '../../ui/parts';
import { DecisionFields } from './Decision';
import type { Outcome } from './Decision';

type Request = NonNullable<Admin['AdminCollection']['processor_request']>;

export function ProcessorRequest({ reference, request }: { reference: string; request: Request }) {
  const mayResolve = useCan('operate');
  const r = request.resolution;
  return (
    <Section title="Processor request">
      <p>
        {request.service_type}: <strong>{request.state}</strong> · {request.send_attempts} send attempt(s), {request.checks} status check(s)
        {request.last_error && ` · last problem: ${request.last_error}`}
      </p>
      <dl className="pairs">
        <dt>Our reference</dt>
        <dd>
          <code>{request.reference}</code>
        </dd>
        <dt>Processor's reference</dt>
        <dd>{request.vendor_reference ? <code>{request.vendor_reference}</code> : 'none given'}</dd>
      </dl>
      {request.held_reason && <p>Held: {request.held_reason}</p>}
      {r && (
        <p>
          Resolved as <strong>{r.outcome}</strong> by {r.resolved_by} at <Time at={r.resolved_at} />: {r.note}
        </p>
      )}
      {request.state === 'held' && mayResolve && <ResolveHeld reference={reference} />}
    </Section>
  );
}

function ResolveHeld({ reference }: { reference: string }) {
  const queries = useQueryClient();
  const [outcome, setOutcome] = useState<Outcome | ''>('');
  const [note, setNote] = useState('');
  const resolve = useMutation({
    mutationFn: (decided: Outcome) =>
      unwrap(admin.POST('/v1/admin/collections/{gateway_reference}/resolve-held', { params: { path: { gateway_reference: reference } }, body: { outcome: decided, note } })),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['collection', reference] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!outcome) return;
    const effect = outcome === 'COMPLETED' ? 'credit the merchant and notify a completion' : 'notify a failure and credit nothing';
    if (window.confirm(`Resolve as ${outcome}? This will ${effect}, and cannot be undone.`)) resolve.mutate(outcome);
  };
  return (
    <form onSubmit={submit} aria-label="Resolve held payment" className="form-grid">
      <p className="wide">Check with the processor what the customer really paid, then decide once.</p>
      <DecisionFields outcome={outcome} onOutcome={setOutcome} note={note} onNote={setNote} error={resolve.error} />
      <div className="wide">
        <FormError error={resolve.error} shown={['note']} />
        <button type="submit" disabled={!outcome || resolve.isPending}>
          Resolve held payment
        </button>
      </div>
    </form>
  );
}
