// The overview, the page to look at first (getOverview): today's and the last 30 days' payments by method
// with their success rate and volume, each as a chart with a table of the same numbers; a merchant also
// sees its balances and what waits for a decision (payouts for approval, held refunds), an operator the
// success rate per processor and MID and what waits on an operator.
import { useQuery } from '@tanstack/react-query';
import { admin, unwrap } from '../../api';
import type { Admin } from '../../api';
import { Link } from '../../router';
import { BarChart } from '../../ui/chart';
import { HELD_PAYMENTS } from '../../ui/collections';
import { LoadError, Loading, Money, Section, Time } from '../../ui/parts';
import { DataTable } from '../../ui/table';
import { DayChart, daysFrom } from '../../ui/time-chart';

type Counts = Admin['OverviewCounts'];
const PERIOD_TITLE = { today: 'Today', last_30_days: 'Last 30 days' } as const;

const rate = (c: Pick<Counts, 'success_rate'>) => (c.success_rate === null ? '—' : `${(c.success_rate * 100).toFixed(1)} %`);

function Volume({ c }: { c: Counts }) {
  if (c.volume.length === 0) return <>—</>;
  return (
    <>
      {c.volume.map((v, i) => (
        <span key={v.currency}>
          {i > 0 && ', '}
          <Money amount={v.amount} currency={v.currency} />
        </span>
      ))}
    </>
  );
}

/** `businessId`: a merchant's own business (the server allows no other); none for an operator's view of all. */
export function Overview({ businessId }: { businessId?: number }) {
  const overview = useQuery({
    queryKey: ['overview', businessId ?? 'all'],
    queryFn: () => unwrap(admin.GET('/v1/admin/overview', { params: { query: { business_id: businessId } } })),
  });
  if (overview.isPending) return <Loading what="the overview" />;
  if (overview.error) return <LoadError error={overview.error} retry={() => overview.refetch()} />;
  const o = overview.data.data;
  return (
    <>
      <h1>Overview</h1>
      <p className="muted">
        As of <Time at={o.as_of} />. Success rate: completed payments among those no longer pending.
      </p>
      {o.attention && <Attention attention={o.attention} />}
      {o.waiting && <Waiting waiting={o.waiting} />}
      {businessId !== undefined && <BalancesLine businessId={businessId} />}
      {o.periods.map((p) => (
        <Section key={p.period} title={PERIOD_TITLE[p.period]}>
          {p.methods.length === 0 ? (
            <p>No payment since <Time at={p.from} />.</p>
          ) : (
            <>
              <BarChart label={`Payments by method, ${PERIOD_TITLE[p.period].toLowerCase()}`} bars={p.methods.map((m) => ({ label: m.payment_method, value: m.collections, text: `${m.collections} (${rate(m)})` }))} />
              <DataTable
                label={`${PERIOD_TITLE[p.period]} by method`}
                rows={p.methods}
                rowKey={(m) => m.payment_method}
                columns={[
                  { head: 'Method', cell: (m) => m.payment_method },
                  { head: 'Payments', num: true, cell: (m) => m.collections },
                  { head: 'Completed', num: true, cell: (m) => m.completed },
                  { head: 'Success rate', num: true, cell: rate },
                  { head: 'Volume', num: true, cell: (m) => <Volume c={m} /> },
                ]}
              />
            </>
          )}
        </Section>
      ))}
      <DaysSection days={o.days} from={o.periods.find((p) => p.period === 'last_30_days')?.from ?? o.as_of} asOf={o.as_of} />
      {o.attention && (
        <Section title="Processors and MIDs, last 30 days">
          {o.mids.length === 0 ? (
            <p>No payment was routed in the last 30 days.</p>
          ) : (
            <>
              <BarChart label="Success rate per MID, last 30 days" max={1} bars={o.mids.map((m) => ({ label: `${m.service_type} #${m.mid_id}`, value: m.success_rate ?? 0, text: rate(m) }))} />
              <DataTable
                label="MIDs, last 30 days"
                rows={o.mids}
                rowKey={(m) => m.mid_id}
                columns={[
                  { head: 'Processor', cell: (m) => m.service_type },
                  { head: 'MID', cell: (m) => `#${m.mid_id}` },
                  { head: 'Business', cell: (m) => <Link to={`/businesses/${m.business_id}`}>#{m.business_id}</Link> },
                  { head: 'Payments', num: true, cell: (m) => m.collections },
                  { head: 'Success rate', num: true, cell: rate },
                  { head: 'Volume', num: true, cell: (m) => <Volume c={m} /> },
                ]}
              />
            </>
          )}
        </Section>
      )}
    </>
  );
}

type Day = Admin['Overview']['days'][number];

/** The last 30 days day by day: per method and currency, a chart of volume and success rate, and a table of the same numbers. */
function DaysSection({ days, from, asOf }: { days: Day[]; from: string; asOf: string }) {
  const groups = new Map<string, Day[]>();
  for (const d of days) groups.set(`${d.payment_method} ${d.currency}`, [...(groups.get(`${d.payment_method} ${d.currency}`) ?? []), d]);
  const window = daysFrom(from, asOf.slice(0, 10));
  return (
    <Section title="Last 30 days, day by day">
      {groups.size === 0 && (
        <p>
          No payment since <Time at={from} />.
        </p>
      )}
      {[...groups].map(([name, rows]) => {
        const byDay = new Map(rows.map((r) => [r.day, r]));
        const points = window.map((day) => ({ day, volume: byDay.get(day)?.volume ?? 0, successRate: byDay.get(day)?.success_rate ?? null }));
        return (
          <div key={name} className="day-group">
            <h3>{name}</h3>
            <DayChart label={`${name}: volume and success rate per day, last 30 days`} currency={rows[0].currency} points={points} />
            <DataTable
              label={`${name} per day, last 30 days`}
              stacked
              rows={rows}
              rowKey={(d) => d.day}
              columns={[
                { head: 'Day (UTC)', cell: (d) => d.day },
                { head: 'Payments', num: true, cell: (d) => d.collections },
                { head: 'Completed', num: true, cell: (d) => d.completed },
                { head: 'Success rate', num: true, cell: (d) => rate(d) },
                { head: 'Volume', num: true, cell: (d) => <Money amount={d.volume} currency={d.currency} /> },
              ]}
            />
          </div>
        );
      })}
    </Section>
  );
}

function Attention({ attention }: { attention: NonNullable<Admin['Overview']['attention']> }) {
  return (
    <Section title="Waiting on an operator">
      <ul className="attention">
        <li>
          <strong>{attention.failing_webhooks}</strong>
          <Link to="/webhooks">failing webhook{attention.failing_webhooks === 1 ? '' : 's'}</Link>
        </li>
        <li>
          <strong>{attention.held_payments}</strong>
          <Link to={HELD_PAYMENTS}>held payment{attention.held_payments === 1 ? '' : 's'}</Link>
        </li>
        <li>
          <strong>{attention.held_refunds}</strong>
          <Link to="/refunds?held=true">held refund{attention.held_refunds === 1 ? '' : 's'}</Link>
        </li>
        <li>
          <strong>{attention.unknown_outcomes}</strong> unknown outcome{attention.unknown_outcomes === 1 ? '' : 's'}
        </li>
      </ul>
    </Section>
  );
}

/** A merchant's decisions waiting: payouts for an owner's approval (and how many for this person). */
function Waiting({ waiting }: { waiting: NonNullable<Admin['Overview']['waiting']> }) {
  const plural = (n: number) => (n === 1 ? '' : 's');
  return (
    <Section title="Waiting for a decision">
      <ul className="attention">
        <li>
          <strong>{waiting.approvals}</strong>
          <Link to="/disbursements?status=PENDING_APPROVAL">disbursement{plural(waiting.approvals)} waiting for approval</Link>
          {waiting.approvals > 0 && <> ({waiting.approvals_for_you === 0 ? 'none for you' : `${waiting.approvals_for_you} for you`})</>}
        </li>
      </ul>
    </Section>
  );
}

function BalancesLine({ businessId }: { businessId: number }) {
  const balances = useQuery({
    queryKey: ['balances', businessId],
    queryFn: () => unwrap(admin.GET('/v1/admin/businesses/{business_id}/balances', { params: { path: { business_id: businessId } } })),
  });
  if (!balances.data) return null;
  return (
    <Section title="Balances" actions={<Link to="/balances">Details</Link>}>
      <DataTable
        rows={balances.data.data}
        rowKey={(w) => w.currency}
        columns={[
          { head: 'Wallet', cell: (w) => w.currency },
          { head: 'Available', num: true, cell: (w) => <Money amount={w.available_balance} currency={w.currency} /> },
          { head: 'Total', num: true, cell: (w) => <Money amount={w.balance} currency={w.currency} /> },
        ]}
      />
    </Section>
  );
}
