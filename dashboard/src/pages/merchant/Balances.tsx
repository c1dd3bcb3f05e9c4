// The merchant's wallets: available, pending (card settlement) and reserved (rolling reserve) money.
import { useQuery } from '@tanstack/react-query';
import { merchant, unwrap } from '../../api';
import { LoadError, Loading, Money } from '../../ui/parts';

export function Balances() {
  const balances = useQuery({ queryKey: ['balances'], queryFn: () => unwrap(merchant.GET('/v1/data/wallets/balances')) });
  return (
    <>
      <h1>Balances</h1>
      <p>Pending money is card credits waiting for card settlement; reserved money is the rolling reserve, released to available when its hold ends.</p>
      {balances.isPending && <Loading what="balances" />}
      {balances.error && <LoadError error={balances.error} retry={() => balances.refetch()} />}
      {balances.data && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Wallet</th>
                <th scope="col" className="num">
                  Available
                </th>
                <th scope="col" className="num">
                  Pending
                </th>
                <th scope="col" className="num">
                  Reserved
                </th>
                <th scope="col" className="num">
                  Total
                </th>
              </tr>
            </thead>
            <tbody>
              {balances.data.data.map((w) => (
                <tr key={w.currency}>
                  <td>{w.currency}</td>
                  <td className="num">
                    <Money amount={w.available_balance} currency={w.currency} />
                  </td>
                  <td className="num">
                    <Money amount={w.pending_balance} currency={w.currency} />
                  </td>
                  <td className="num">
                    <Money amount={w.reserved_balance} currency={w.currency} />
                  </td>
                  <td className="num">
                    <Money amount={w.balance} currency={w.currency} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
