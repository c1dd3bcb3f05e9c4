// The merchant's wallets: available, pending (card settlement) and reserved (rolling reserve) money,
// with when each held amount is released.
import { useQuery } from '@tanstack/react-query';
import { admin, unwrap } from '../../api';
import { StatementDownload } from '../../ui/downloads';
import { LoadError, Loading, Money, Section, Time } from '../../ui/parts';

export function Balances({ businessId }: { businessId: number }) {
  const balances = useQuery({
    queryKey: ['balances', businessId],
    queryFn: () => unwrap(admin.GET('/v1/admin/businesses/{business_id}/balances', { params: { path: { business_id: businessId } } })),
  });
  return (
    <>
      <h1>Balances</h1>
      <p>Pending money is card credits waiting for card settlement; reserved money is the rolling reserve. Each becomes available on its release date.</p>
      {balances.isPending && <Loading what="balances" />}
      {balances.error && <LoadError error={balances.error} retry={() => balances.refetch()} />}
      {balances.data?.data.map((w) => (
        <Section key={w.currency} title={`${w.currency} wallet`}>
          <dl className="pairs">
            <dt>Available</dt>
            <dd>
              <Money amount={w.available_balance} currency={w.currency} />
            </dd>
            <dt>Pending</dt>
            <dd>
              <Money amount={w.pending_balance} currency={w.currency} />
            </dd>
            <dt>Reserved</dt>
            <dd>
              <Money amount={w.reserved_balance} currency={w.currency} />
            </dd>
            <dt>Total</dt>
            <dd>
              <Money amount={w.balance} currency={w.currency} />
            </dd>
          </dl>
          {w.releases.length > 0 && (
            <div className="table-wrap">
              <table aria-label={`${w.currency} releases`}>
                <thead>
                  <tr>
                    <th scope="col">Released on</th>
                    <th scope="col">From</th>
                    <th scope="col" className="num">
                      Amount
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {w.releases.map((r) => (
                    <tr key={r.bucket + r.release_at}>
                      <td>
                        <Time at={r.release_at} />
                      </td>
                      <td>{r.bucket}</td>
                      <td className="num">
                        <Money amount={r.amount} currency={w.currency} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <StatementDownload businessId={businessId} currency={w.currency} />
        </Section>
      ))}
    </>
  );
}
