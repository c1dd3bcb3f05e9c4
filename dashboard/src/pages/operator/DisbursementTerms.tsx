// The operator's disbursement terms of a business (updateBusiness): the freeze switch, the fee (percent
// plus fixed, in the currency of the wallet paid from) and how long a disbursement waits for approval;
// and a wallet's limits (updateWallet): the most in one disbursement and in one UTC day, and the
// approval threshold. Empty means no limit. Raising or removing a limit or the threshold waits for its
// notice, every owner told (shown below the form). The API's refusals show at their field.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap } from '../../api';
import type { Admin } from '../../api';
import { CheckField, FormError, TextField } from '../../ui/forms';
import { Guard } from '../../ui/guard';
import { Notice, Section } from '../../ui/parts';
import { ScheduledChanges } from '../../ui/scheduled';
import { asNumber } from '../../ui/values';

/** Empty is no limit; anything else goes as typed (a non-number as text, so the API names the field). */
const amountOrNull = (v: string) => (v.trim() === '' ? null : asNumber(v));
const shown = (v: number | null) => (v === null ? '' : String(v));

export function DisbursementTerms({ business }: { business: Admin['Business'] }) {
  const queries = useQueryClient();
  const [frozen, setFrozen] = useState(business.disbursements_frozen);
  const [percent, setPercent] = useState(String(business.disbursement_fee_percent));
  const [fixed, setFixed] = useState(String(business.disbursement_fee_fixed));
  const [hours, setHours] = useState(String(business.disbursement_approval_hours));
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        admin.PATCH('/v1/admin/businesses/{business_id}', {
          params: { path: { business_id: business.id } },
          body: { disbursements_frozen: frozen, disbursement_fee_percent: asNumber(percent), disbursement_fee_fixed: asNumber(fixed), disbursement_approval_hours: asNumber(hours) },
        }),
      ),
    onMutate: () => setSaved(false),
    onSuccess: async () => {
      setSaved(true);
      await queries.invalidateQueries({ queryKey: ['business', business.id] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <Section title="Disbursements">
      {saved && <Notice>Disbursement terms saved. They apply to disbursements asked for from now on.</Notice>}
      {business.disbursements_frozen && <p className="status status-failed">Disbursements are frozen: new ones are refused.</p>}
      <Guard need="operate">
        <form onSubmit={submit} aria-label="Disbursement terms" className="form-grid">
          <CheckField label="Freeze disbursements" name="disbursements_frozen" checked={frozen} onValue={setFrozen} />
          <TextField label="Disbursement fee (%)" name="disbursement_fee_percent" inputMode="decimal" error={save.error} value={percent} onValue={setPercent} />
          <TextField label="Disbursement fee, fixed" name="disbursement_fee_fixed" inputMode="decimal" error={save.error} value={fixed} onValue={setFixed} />
          <TextField label="Approval wait (hours)" name="disbursement_approval_hours" inputMode="numeric" error={save.error} value={hours} onValue={setHours} />
          <div className="wide">
            <FormError error={save.error} shown={['disbursements_frozen', 'disbursement_fee_percent', 'disbursement_fee_fixed', 'disbursement_approval_hours']} />
            <button type="submit" disabled={save.isPending}>
              Save disbursement terms
            </button>
          </div>
        </form>
      </Guard>
    </Section>
  );
}

export function WalletLimits({ wallet }: { wallet: Admin['Wallet'] }) {
  const queries = useQueryClient();
  const [per, setPer] = useState(shown(wallet.disbursement_limit));
  const [daily, setDaily] = useState(shown(wallet.disbursement_daily_limit));
  const [threshold, setThreshold] = useState(shown(wallet.disbursement_approval_threshold));
  const [saved, setSaved] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        admin.PATCH('/v1/admin/businesses/{business_id}/wallets/{currency}', {
          params: { path: { business_id: wallet.business_id, currency: wallet.currency } },
          body: { disbursement_limit: amountOrNull(per), disbursement_daily_limit: amountOrNull(daily), disbursement_approval_threshold: amountOrNull(threshold) },
        }),
      ),
    onMutate: () => setSaved(null),
    onSuccess: async (answer) => {
      setSaved(answer.data.scheduled_changes.length > 0 ? 'Saved: lower settings apply now; raised or removed ones wait for their notice (below), and every owner has been emailed.' : 'Limits saved.');
      await queries.invalidateQueries({ queryKey: ['wallets', wallet.business_id] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <Guard need="operate">
      <ScheduledChanges changes={wallet.scheduled_changes} currency={wallet.currency} />
      <form onSubmit={submit} aria-label={`${wallet.currency} disbursement limits`} className="form-grid">
        {saved && <Notice>{saved}</Notice>}
        <TextField label={`Largest disbursement (${wallet.currency})`} name="disbursement_limit" inputMode="decimal" error={save.error} value={per} onValue={setPer} hint="Empty: no limit." />
        <TextField label={`Daily limit (${wallet.currency})`} name="disbursement_daily_limit" inputMode="decimal" error={save.error} value={daily} onValue={setDaily} hint="Empty: no limit." />
        <TextField label={`Approval above (${wallet.currency})`} name="disbursement_approval_threshold" inputMode="decimal" error={save.error} value={threshold} onValue={setThreshold} hint="Above this a disbursement waits for a second owner's approval; empty means no threshold, so none waits. Raising or removing a limit or the threshold waits for its notice." />
        <div className="wide">
          <FormError error={save.error} shown={['disbursement_limit', 'disbursement_daily_limit', 'disbursement_approval_threshold']} />
          <button type="submit" disabled={save.isPending}>
            Save {wallet.currency} limits
          </button>
        </div>
      </form>
    </Guard>
  );
}
