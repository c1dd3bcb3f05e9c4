// A business's wallets (one per currency) and the form that adds one.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap, unwrapPage } from '../../api';
import type { Admin } from '../../api';
import { CheckField, FormError, TextField } from '../../ui/forms';
import { Link } from '../../router';
import { Guard } from '../../ui/guard';
import { LoadError, Loading, Section, Time } from '../../ui/parts';
import { WalletLimits } from './DisbursementTerms';

export function Wallets({ business }: { business: Admin['Business'] }) {
  const path = { business_id: business.id };
  const queries = useQueryClient();
  const wallets = useQuery({
    queryKey: ['wallets', business.id],
    queryFn: () => unwrapPage(admin.GET('/v1/admin/businesses/{business_id}/wallets', { params: { path, query: { per_page: 100 } } })),
  });
  const [currency, setCurrency] = useState('');
  const [makeDefault, setMakeDefault] = useState(false);
  const add = useMutation({
    mutationFn: () => unwrap(admin.POST('/v1/admin/businesses/{business_id}/wallets', { params: { path }, body: { currency: currency.trim().toUpperCase(), is_default: makeDefault } })),
    onSuccess: async () => {
      setCurrency('');
      setMakeDefault(false);
      await queries.invalidateQueries({ queryKey: ['wallets', business.id] });
      await queries.invalidateQueries({ queryKey: ['business', business.id] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };
  return (
    <Section title="Wallets">
      {wallets.isPending && <Loading what="wallets" />}
      {wallets.error && <LoadError error={wallets.error} retry={() => wallets.refetch()} />}
      {wallets.data && (
        <ul className="plain">
          {wallets.data.items.map((w) => (
            <li key={w.currency}>
              <strong>{w.currency}</strong> {w.is_default && <span className="tag">default</span>} <span className="muted">since <Time at={w.created_at} /></span>
              {' '}
              <Link to={`/businesses/${business.id}/statement?currency=${w.currency}`}>{w.currency} statement</Link>
              <WalletLimits wallet={w} />
            </li>
          ))}
        </ul>
      )}
      <Guard need="operate">
      <form onSubmit={submit} aria-label="Add a wallet" className="inline-form">
        <TextField label="New wallet currency" name="currency" maxLength={3} required error={add.error} value={currency} onValue={setCurrency} />
        <CheckField label="Make it the default wallet" name="is_default" checked={makeDefault} onValue={setMakeDefault} />
        <button type="submit" disabled={add.isPending}>
          Add wallet
        </button>
        <FormError error={add.error} shown={['currency', 'is_default']} />
      </form>
      </Guard>
    </Section>
  );
}
