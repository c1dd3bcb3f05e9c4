// One business account, split as people look for it (one form of 2,700 px was too much):
// terms and fees, wallets, MIDs, API tokens and the go-live review, each at its own address under
// /businesses/:id, with the business's name, its verification and a navigation between them on each.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap } from '../../api';
import type { Admin } from '../../api';
import { Link } from '../../router';
import { LoadError, Loading, Notice, Section } from '../../ui/parts';
import { BusinessForm } from './BusinessForm';
import type { Terms } from './BusinessForm';
import { Wallets } from './Wallets';
import { DisbursementTerms } from './DisbursementTerms';
import { Mids } from './Mids';
import { ApiTokens } from '../shared/ApiTokens';
import { StatementPage } from '../shared/Statement';
import { Guard } from '../../ui/guard';
import { GoLive } from './GoLive';

/** Each part of a business's page: its address under /businesses/:id ('' for the terms) and its name. */
export const BUSINESS_SECTIONS = [
  { path: '', label: 'Terms and fees' },
  { path: 'wallets', label: 'Wallets' },
  { path: 'statement', label: 'Statement' },
  { path: 'mids', label: 'MIDs' },
  { path: 'tokens', label: 'API tokens' },
  { path: 'go-live', label: 'Go-live review' },
] as const;
export type BusinessSection = (typeof BUSINESS_SECTIONS)[number]['path'];

export const isBusinessSection = (s: string): s is BusinessSection => BUSINESS_SECTIONS.some((b) => b.path === s);

export function Business({ id, section = '' }: { id: number; section?: BusinessSection }) {
  const business = useQuery({
    queryKey: ['business', id],
    queryFn: () => unwrap(admin.GET('/v1/admin/businesses/{business_id}', { params: { path: { business_id: id } } })),
  });
  if (business.isPending) return <Loading what="the business" />;
  if (business.error) return <LoadError error={business.error} retry={() => business.refetch()} list={{ to: '/businesses', name: 'the businesses' }} />;
  const b = business.data.data;
  return (
    <>
      <div className="page-head">
        <h1>
          {b.name} <span className="muted">#{b.id}</span>
        </h1>
        <span className={b.verified ? 'status status-completed' : 'status status-pending'}>{b.verified ? 'verified for live' : 'not verified'}</span>
      </div>
      <nav aria-label="Business sections" className="subnav">
        <ul>
          {BUSINESS_SECTIONS.map((s) => (
            <li key={s.path}>
              <Link to={`/businesses/${b.id}${s.path ? `/${s.path}` : ''}`} aria-current={s.path === section ? 'page' : undefined}>
                {s.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {section === '' && <Terms business={b} />}
      {section === '' && <DisbursementTerms key={b.updated_at} business={b} />}
      {section === 'wallets' && <Wallets business={b} />}
      {section === 'statement' && <StatementPage businessId={b.id} base={`/businesses/${b.id}/statement`} nested />}
      {section === 'mids' && <Mids businessId={b.id} />}
      {section === 'tokens' && <ApiTokens businessId={b.id} />}
      {section === 'go-live' && <GoLive business={b} />}
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
