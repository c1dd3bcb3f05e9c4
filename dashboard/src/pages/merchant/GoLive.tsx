// The merchant's road to live: the sandbox test cases (which passed, which are left) and the go-live
// request the operator reviews.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap } from '../../api';
import { Guard } from '../../ui/guard';
import { FormError, TextField } from '../../ui/forms';
import { LoadError, Loading, Notice, Section, Time } from '../../ui/parts';
import { Certification } from '../operator/GoLive';

export function MerchantGoLive({ businessId }: { businessId: number }) {
  const queries = useQueryClient();
  const path = { business_id: businessId };
  const business = useQuery({ queryKey: ['business', businessId], queryFn: () => unwrap(admin.GET('/v1/admin/businesses/{business_id}', { params: { path } })) });
  const report = useQuery({ queryKey: ['certification', businessId], queryFn: () => unwrap(admin.GET('/v1/admin/businesses/{business_id}/certification', { params: { path } })) });
  const [note, setNote] = useState('');
  const ask = useMutation({
    mutationFn: () => unwrap(admin.POST('/v1/admin/businesses/{business_id}/go-live-request', { params: { path }, body: note ? { note } : {} })),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['business', businessId] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    ask.mutate();
  };
  const b = business.data?.data;
  return (
    <>
      <h1>Go live</h1>
      <Section title="Sandbox test cases">
        <p>Run each case in the sandbox with the designated test numbers and cards (GET /v1/sandbox/scenarios lists them); they tick themselves off.</p>
        {report.isPending && <Loading what="your test cases" />}
        {report.error && <LoadError error={report.error} retry={() => report.refetch()} />}
        {report.data && <Certification report={report.data.data} linkBase="/payments" />}
      </Section>
      <Section title="Go-live request">
        {business.error && <LoadError error={business.error} retry={() => business.refetch()} />}
        {b?.verified ? (
          <Notice>
            Verified for live by {b.verified_by} on <Time at={b.verified_at} />.
          </Notice>
        ) : ask.isSuccess ? (
          <Notice>Request sent on <Time at={ask.data.data.requested_at} />. The operator reviews your test cases and tells you when you are live.</Notice>
        ) : (
          <Guard need="requestGoLive">
            <form onSubmit={submit} aria-label="Request go-live" className="form-grid">
              <TextField label="Note for the operator" name="note" error={ask.error} value={note} onValue={setNote} hint="Optional: launch date, anything to know." />
              <div className="wide">
                <FormError error={ask.error} shown={['note']} />
                <button type="submit" disabled={ask.isPending}>
                  Request go-live
                </button>
              </div>
            </form>
          </Guard>
        )}
      </Section>
    </>
  );
}
