// The daily settlement report (getSettlementReport): for one UTC day, what each processor confirmed against
// what we completed and credited, per processor, MID and currency, and every payment the two disagree on,
// with the same report as a CSV file. The day is the only filter the API offers.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { admin, unwrap } from '../../api';
import type { Admin } from '../../api';
import { Link, navigate, useLocation } from '../../router';
import { TextField } from '../../ui/forms';
import { LoadError, Loading, Money, Section, Status, Time } from '../../ui/parts';
import { DataTable } from '../../ui/table';
import { todayUtc, UTC_DAY, UTC_DAY_HINT } from '../../ui/values';


const MISMATCH: Record<string, string> = {
  confirmed_not_completed: 'Confirmed by the processor, not completed here',
  completed_not_confirmed: 'Completed here without the processor’s confirmation',
};

export function SettlementReport() {
  const { query } = useLocation();
  const asked = query.get('date') ?? todayUtc();
  const [date, setDate] = useState(asked);
  const report = useQuery({
    queryKey: ['settlement', asked],
    queryFn: async () => {
      const body = await unwrap(admin.GET('/v1/admin/reports/settlement', { params: { query: { date: asked, format: 'json' } } }));
      // the CSV answer is a string; asked for JSON (and with Accept: application/json) the envelope comes
      if (typeof body === 'string') throw new Error('PayCollect answered the report as a file, not as JSON');
      return body.data;
    },
    enabled: UTC_DAY.test(asked),
  });
  const show = (e: FormEvent) => {
    e.preventDefault();
    navigate(`/reports/settlement?${new URLSearchParams({ date })}`);
  };
  return (
    <>
      <h1>Settlement report</h1>
      <p>
        For the collections created on one UTC day and sent to a real processor: what each processor confirmed (its own final answer to our status
        query) against what we completed and credited, per processor, MID and currency, and every payment where the two disagree. Sandbox payments have
        no processor and are not in it.
      </p>
      <form onSubmit={show} aria-label="Settlement day" className="inline-form">
        <TextField label="Day (UTC, yyyy-mm-dd)" name="date" type="text" required inputMode="numeric" autoComplete="off" hint={UTC_DAY_HINT} error={report.error} value={date} onValue={setDate} />
        <button type="submit">Show report</button>
      </form>
      {!UTC_DAY.test(asked) && <p role="alert" className="error">“{asked}” is not a day: choose one above.</p>}
      {report.isPending && UTC_DAY.test(asked) && <Loading what="the settlement report" />}
      {report.error && <LoadError error={report.error} />}
      {report.data && <Report report={report.data} />}
    </>
  );
}

function Report({ report }: { report: Admin['SettlementReport'] }) {
  const csv = `/v1/admin/reports/settlement?${new URLSearchParams({ date: report.date, format: 'csv' })}`;
  return (
    <>
      <p className="downloads">
        <a href={csv} download>
          Download CSV
        </a>{' '}
        <span className="muted">of the report for {report.date}: a total record per processor, MID and currency, then a record per mismatch (times in UTC).</span>
      </p>
      <Section title={`Totals for ${report.date} (UTC)`}>
        {report.totals.length === 0 ? (
          <p>No collection created that day was sent to a processor.</p>
        ) : (
          <DataTable
            label="Totals"
            rows={report.totals}
            rowKey={(t) => `${t.service_type}-${t.mid_id}-${t.currency}-${t.account_currency}`}
            columns={[
              { head: 'Processor', cell: (t) => t.service_type },
              { head: 'MID', cell: (t) => `#${t.mid_id}` },
              { head: 'Requests', num: true, cell: (t) => t.requests },
              { head: 'Confirmed', num: true, cell: (t) => <>{t.confirmed_count} · <Money amount={t.confirmed_amount} currency={t.currency} /></> },
              { head: 'Declined', num: true, cell: (t) => t.declined_count },
              { head: 'Completed', num: true, cell: (t) => <>{t.completed_count} · <Money amount={t.completed_amount} currency={t.currency} /></> },
              { head: 'Credited', num: true, cell: (t) => <Money amount={t.credited_amount} currency={t.account_currency} /> },
              { head: 'Fees', num: true, cell: (t) => <Money amount={t.fees} currency={t.account_currency} /> },
              { head: 'Mismatches', num: true, cell: (t) => t.mismatches },
            ]}
          />
        )}
      </Section>
      <Section title="Mismatches">
        {report.mismatches.length === 0 ? (
          <p>None: the processors and PayCollect agree on every payment of the day.</p>
        ) : (
          <>
            <p>Open a payment to see its processor request; one confirmed but not completed here is resolved from its page.</p>
            <DataTable
              label="Mismatches"
              stacked
              rows={report.mismatches}
              rowKey={(m) => m.gateway_reference}
              columns={[
                { head: 'Mismatch', cell: (m) => MISMATCH[m.mismatch] ?? m.mismatch },
                { head: 'Payment', className: 'break', cell: (m) => <Link to={`/collections/${m.gateway_reference}`}>{m.gateway_reference}</Link> },
                { head: 'Business', cell: (m) => <Link to={`/businesses/${m.business_id}`}>#{m.business_id}</Link> },
                { head: 'Processor', cell: (m) => `${m.service_type}, MID #${m.mid_id}` },
                { head: 'Amount', num: true, cell: (m) => <Money amount={m.amount} currency={m.currency} /> },
                { head: 'Processor said', cell: (m) => (m.confirmed_outcome ? <>{m.confirmed_outcome} at <Time at={m.confirmed_at} /></> : 'nothing final') },
                { head: 'Status here', cell: (m) => <Status status={m.status} /> },
                { head: 'Created', cell: (m) => <Time at={m.created_at} /> },
              ]}
            />
          </>
        )}
      </Section>
    </>
  );
}
