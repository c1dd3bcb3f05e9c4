// The merchant's wallets: available, pending (card settlement) and reserved (rolling reserve) money,
// with when each held amount is released; what is held for money out (refunds and disbursements under
// way); and each wallet's disbursement limits (the operator's, shown) and approval threshold (an owner's
// to set: above it a disbursement waits for a second owner). Lowering the threshold applies at once;
// raising or removing it waits for its notice, every owner told, and any owner can stop it meanwhile.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap } from '../../api';
import type { Admin } from '../../api';
import { useCan } from '../../session';
import { Link } from '../../router';
import { FormError, TextField } from '../../ui/forms';
import { LoadError, Loading, Money, Notice, Section, Time } from '../../ui/parts';
import { ScheduledChanges } from '../../ui/scheduled';
import { asNumber } from '../../ui/values';

export function Balances({ businessId }: { businessId: number }) {
  const balances = useQuery({
    queryKey: ['balances', businessId],
    queryFn: () => unwrap(admin.GET('/v1/admin/businesses/{business_id}/balances', { params: { path: { business_id: businessId } } })),
  });
  const wallets = useQuery({
    queryKey: ['wallet-settings', businessId],
    queryFn: () => unwrap(admin.GET('/v1/admin/businesses/{business_id}/wallets', { params: { path: { business_id: businessId }, query: { per_page: 100 } } })),
  });
  return (
    <>
      <h1>Balances</h1>
      <p>
        Pending money is card credits waiting for card settlement; reserved money is the rolling reserve. Each becomes available on its release date. Money held for refunds and
        disbursements under way leaves the wallet when they complete, or returns to available if they fail.
      </p>
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
            <dt>Held for refunds</dt>
            <dd>
              <Money amount={w.refund_held_balance} currency={w.currency} />
            </dd>
            <dt>Held for disbursements</dt>
            <dd>
              <Money amount={w.disbursement_held_balance} currency={w.currency} />
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
          <p>
            <Link to={`/statement?currency=${w.currency}`}>{w.currency} statement</Link>{' '}
            <span className="muted">(every movement of the days you choose, on screen and as CSV)</span>
          </p>
          {wallets.data && <DisbursementSettings wallet={wallets.data.data.find((x) => x.currency === w.currency)} />}
        </Section>
      ))}
    </>
  );
}

const none = (v: number | null, currency: string) => (v === null ? 'none' : <Money amount={v} currency={currency} />);

function DisbursementSettings({ wallet }: { wallet: Admin['Wallet'] | undefined }) {
  const owner = useCan('requestGoLive'); // the business's owners
  const queries = useQueryClient();
  // an owner stops a loosening that waits by setting the threshold again to what it is
  const stop = useMutation({
    mutationFn: (w: Admin['Wallet']) =>
      unwrap(
        admin.PATCH('/v1/admin/businesses/{business_id}/wallets/{currency}', {
          params: { path: { business_id: w.business_id, currency: w.currency } },
          body: { disbursement_approval_threshold: w.disbursement_approval_threshold },
        }),
      ),
    onSuccess: (_d, w) => queries.invalidateQueries({ queryKey: ['wallet-settings', w.business_id] }),
  });
  if (!wallet) return null;
  const ownersStop = owner ? (field: string) => field === 'disbursement_approval_threshold' && stop.mutate(wallet) : undefined;
  return (
    <>
      <h3>Disbursements</h3>
      <dl className="pairs">
        <dt>Largest disbursement</dt>
        <dd>{none(wallet.disbursement_limit, wallet.currency)}</dd>
        <dt>Daily limit</dt>
        <dd>{none(wallet.disbursement_daily_limit, wallet.currency)}</dd>
        <dt>Approval above</dt>
        <dd>{none(wallet.disbursement_approval_threshold, wallet.currency)}</dd>
      </dl>
      <ScheduledChanges changes={wallet.scheduled_changes} currency={wallet.currency} stop={ownersStop} stopping={stop.isPending} />
      <FormError error={stop.error} />
      {owner && <ThresholdForm wallet={wallet} />}
    </>
  );
}

function ThresholdForm({ wallet }: { wallet: Admin['Wallet'] }) {
  const queries = useQueryClient();
  const [value, setValue] = useState(wallet.disbursement_approval_threshold === null ? '' : String(wallet.disbursement_approval_threshold));
  const [saved, setSaved] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        admin.PATCH('/v1/admin/businesses/{business_id}/wallets/{currency}', {
          params: { path: { business_id: wallet.business_id, currency: wallet.currency } },
          body: { disbursement_approval_threshold: value.trim() === '' ? null : asNumber(value) },
        }),
      ),
    onSuccess: async (answer) => {
      const waits = answer.data.scheduled_changes.some((c) => c.field === 'disbursement_approval_threshold');
      const what = answer.data.disbursement_approval_threshold !== null && value.trim() === '' ? 'removing the threshold' : 'the higher threshold';
      setSaved(waits ? `Asked for: ${what} takes effect after its notice (shown above), and every owner has been emailed.` : 'Approval threshold saved.');
      await queries.invalidateQueries({ queryKey: ['wallet-settings', wallet.business_id] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(null);
    save.mutate();
  };
  return (
    <form onSubmit={submit} aria-label={`${wallet.currency} approval threshold`} className="form-grid">
      {saved && <Notice>{saved}</Notice>}
      <TextField
        label="Approval threshold"
        name="disbursement_approval_threshold"
        inputMode="decimal"
        error={save.error}
        value={value}
        onValue={setValue}
        hint="A disbursement above this amount waits until another owner approves it. Lowering it applies at once; raising it takes effect only after a notice period, and every owner is emailed. An empty field means no threshold: every disbursement would be sent without a second owner, so removing it waits for the same notice and any owner can stop it."
      />
      <div className="wide">
        <FormError error={save.error} shown={['disbursement_approval_threshold']} />
        <button type="submit" disabled={save.isPending}>
          Save threshold
        </button>
      </div>
    </form>
  );
}
