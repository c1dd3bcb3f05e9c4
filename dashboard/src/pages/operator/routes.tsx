// The operator console's pages by address.
import type { ReactNode } from 'react';
import { match } from '../../router';
import { Business } from './Business';
import { Businesses, NewBusiness } from './Businesses';
import { AdminCollection, AdminCollections } from './Collections';
import { CardKeys, FailingWebhooks, FxRates } from './Operations';

export const OPERATOR_NAV = [
  { to: '/businesses', label: 'Businesses' },
  { to: '/collections', label: 'Collections' },
  { to: '/webhooks', label: 'Failing webhooks' },
  { to: '/rates', label: 'Market rates' },
  { to: '/card-keys', label: 'Card key' },
] as const;

export function operatorPage(path: string): ReactNode | null {
  if (path === '/' || path === '/businesses') return <Businesses />;
  if (path === '/businesses/new') return <NewBusiness />;
  const business = match('/businesses/:id', path);
  if (business && /^\d+$/.test(business.id)) return <Business key={business.id} id={Number(business.id)} />;
  if (path === '/collections') return <AdminCollections />;
  const collection = match('/collections/:reference', path);
  if (collection) return <AdminCollection key={collection.reference} reference={collection.reference} />;
  if (path === '/webhooks') return <FailingWebhooks />;
  if (path === '/rates') return <FxRates />;
  if (path === '/card-keys') return <CardKeys />;
  return null;
}
