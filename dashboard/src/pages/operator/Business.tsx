// One business account: its terms, wallets, MIDs, API tokens and go-live review on one page, each a
// section of its own.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap } from '../../api';
import type { Admin } from '../../api';
import { LoadError, Loading, Notice, Section } from '../../ui/parts';
import { BusinessForm } from './BusinessForm';
import type { Terms } from './BusinessForm';
import { Wallets } from './Wallets';
import { Mids } from './Mids';
import { ApiTokens } from '../shared/ApiTokens';
import { Guard } from '../../ui/guard';
import { GoLive } from './GoLive';

export function Business({ id }: { id: number }) {
  const business = useQuery({
    queryKey: ['business', id],
    queryFn: () => unwrap(admin.GET('/v1/admin/businesses/{business_id}', { params: { path: { business_id: id } } })),
  });
  if (business.isPending) return <Loading what="the business" />;
  if (business.error) return <LoadError error={business.error} retry={() => business.refetch()} />;
  const b = business.data.data;
  return (
    <>
      <div className="page-head">
        <h1>
          {b.name} <span className="muted">#{b.id}</span>
        </h1>
        <span className={b.verified ? 'status status-completed' : 'status status-pending'}>{b.verified ? 'verified for live' : 'not verified'}</span>
      </div>
      <Terms business={b} />
      <Wallets business={b} />
      <Mids businessId={b.id} />
      <ApiTokens businessId={b.id} />
      <GoLive business={b} />
    </>
  );
}

function Terms({ business }: { business: Admin['Business'] }) {
  const queries = useQueryClient();
  const [saved, setSaved] = useState(false);
  const update = useMutation({
    mutationFn: (terms: Terms) => unwrap(admin.PATCH('/v1/admin/businesses/{business_id}', { params: { path: { business_id: business.id } }, body: terms })),
    onMutate: () => setSaved(false),
    onSuccess: async () => {
      setSaved(true);
      await queries.invalidateQueries({ queryKey: ['business', business.id] });
    },
  });
  return (
    <Section title="Terms and fees">
      {saved && <Notice>Terms saved. They apply to collections accepted from now on.</Notice>}
      <Guard need="operate">
        <BusinessForm key={business.updated_at} initial={business} submitLabel="Save terms" pending={update.isPending} error={update.error} onSubmit={(t) => update.mutate(t)} />
      </Guard>
    </Section>
  );
}
