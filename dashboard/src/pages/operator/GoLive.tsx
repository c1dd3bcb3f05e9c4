// The go-live review: the sandbox test cases the merchant ran, then the operator's verification.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap } from '../../api';
import type { Admin } from '../../api';
import { Link } from '../../router';
import { FormError, TextField } from '../../ui/forms';
import { Guard } from '../../ui/guard';
import { useSession } from '../../session';
import { LoadError, Loading, Section, Time } from '../../ui/parts';

/**
 * The sandbox test cases, passed and open. `merchant`: the words speak to the merchant ("you"), who runs
 * the cases, and its payments are at /payments; otherwise to the operator, about the merchant.
 */
export function Certification({ report, merchant = false }: { report: Admin['Certification']; merchant?: boolean }) {
  const left = report.scenarios.filter((s) => !s.passed).length;
  const summary = merchant
    ? report.complete
      ? 'You have passed every sandbox test case. Next, ask to go live below.'
      : `You have ${left} test case${left === 1 ? '' : 's'} left. Run each in the sandbox with the designated test numbers and cards (GET /v1/sandbox/scenarios lists them); each ticks itself off when your payment gives the expected result.`
    : report.complete
      ? 'Every sandbox test case passed.'
      : 'Some sandbox test cases have not passed yet: the merchant runs them with the designated test numbers and cards.';
  return (
    <>
      <p>{summary}</p>
      <ul className="checklist">
        {report.scenarios.map((s) => (
          <li key={s.scenario} className={s.passed ? 'passed' : 'open'}>
            <span aria-hidden="true">{s.passed ? '✔' : '○'}</span> <code>{s.scenario}</code> {s.passed ? 'passed' : 'not yet'}
            {s.gateway_reference && (
              <>
                {' '}
                by {merchant ? 'your payment ' : ''}<Link to={`${merchant ? '/payments' : '/collections'}/${s.gateway_reference}`}>{s.gateway_reference}</Link> at <Time at={s.at} />
              </>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}

export function GoLive({ business }: { business: Admin['Business'] }) {
  const queries = useQueryClient();
  const path = { business_id: business.id };
  const report = useQuery({
    queryKey: ['certification', business.id],
    queryFn: () => unwrap(admin.GET('/v1/admin/businesses/{business_id}/certification', { params: { path } })),
  });
  const me = useSession().user.email;
  const [note, setNote] = useState('');
  const verify = useMutation({
    mutationFn: () => unwrap(admin.POST('/v1/admin/businesses/{business_id}/verify', { params: { path }, body: note ? { note } : {} })),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['business', business.id] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    verify.mutate();
  };
  return (
    <Section title="Go-live review">
      {report.isPending && <Loading what="the certification report" />}
      {report.error && <LoadError error={report.error} retry={() => report.refetch()} />}
      {report.data && <Certification report={report.data.data} />}
      {business.verified ? (
        <p>
          Verified by <strong>{business.verified_by}</strong> at <Time at={business.verified_at} />.
        </p>
      ) : (
        <Guard need="operate">
          <form onSubmit={submit} aria-label="Verify for live" className="form-grid">
            <p className="wide">The verification is recorded in your name, {me}.</p>
            <TextField label="What was reviewed" name="note" error={verify.error} value={note} onValue={setNote} />
            <div className="wide">
              <FormError error={verify.error} shown={['note']} />
              <button type="submit" disabled={verify.isPending}>
                Verify for live
              </button>
            </div>
          </form>
        </Guard>
      )}
    </Section>
  );
}
