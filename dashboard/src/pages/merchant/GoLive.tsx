// The merchant's road to live, told to the merchant: the sandbox test cases it still has to pass, then its
// go-live request, which an operator reviews.
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
      <p>To take real payments, you pass each sandbox test case below with your sandbox API token, then ask to go live. An operator reviews your test cases and tells you when you are live.</p>
      <Section title="Sandbox test cases">
        {report.isPending && <Loading what="your test cases" />}
        {report.error && <LoadError error={report.error} retry={() => report.refetch()} />}
        {report.data && <Certification report={report.data.data} merchant />}
      </Section>
      <Section title="Go-live request">
        {business.error && <LoadError error={business.error} retry={() => business.refetch()} />}
        {b?.verified ? (
          <Notice>
            You are live: your business was verified by {b.verified_by} on <Time at={b.verified_at} />. Use your live API tokens to take real payments.
          </Notice>
        ) : ask.isSuccess ? (
          <Notice>
            You asked to go live on <Time at={ask.data.data.requested_at} />. An operator now reviews your test cases and tells you when you are live; there is nothing more for you to do until then.
          </Notice>
        ) : (
          <Guard need="requestGoLive">
            <form onSubmit={submit} aria-label="Ask to go live" className="form-grid">
              <TextField label="Your note for the operator" name="note" error={ask.error} value={note} onValue={setNote} hint="Optional: your launch date, or anything the reviewer should know." />
              <div className="wide">
                <FormError error={ask.error} shown={['note']} />
                <button type="submit" disabled={ask.isPending}>
                  Ask to go live
                </button>
              </div>
            </form>
          </Guard>
        )}
      </Section>
    </>
  );
}
