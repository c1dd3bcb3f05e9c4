// The merchant portal's pages by address.
import type { ReactNode } from 'react';
import { match } from '../../router';
import { Balances } from './Balances';
import { MerchantCollection, MerchantCollections } from './Collections';

export const MERCHANT_NAV = [
  { to: '/payments', label: 'Payments' },
  { to: '/balances', label: 'Balances' },
] as const;

export function merchantPage(path: string): ReactNode | null {
  if (path === '/' || path === '/payments') return <MerchantCollections />;
  const payment = match('/payments/:reference', path);
  if (payment) return <MerchantCollection key={payment.reference} reference={payment.reference} />;
  if (path === '/balances') return <Balances />;
  return null;
}
