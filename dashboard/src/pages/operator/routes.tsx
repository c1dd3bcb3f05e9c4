// The operator console's pages by address.
import type { ReactNode } from 'react';
import { match } from '../../router';
import { can } from '../../session';
import type { User } from '../../session';
import { Account } from '../shared/Account';
import { AuditLog } from '../shared/AuditLog';
import { CollectionPage, CollectionsPage } from '../shared/Collections';
import { DisbursementPage, DisbursementsPage } from '../shared/Disbursements';
import { Overview } from '../shared/Overview';
import { People } from '../shared/People';
import { RefundsPage } from '../shared/Refunds';
import { Business, isBusinessSection } from './Business';
import { Businesses, NewBusiness } from './Businesses';
import { OperatorDisputes } from './Disputes';
import { GoLiveRequests } from './GoLiveRequests';
import { CardKeys, FailingWebhooks, FxRates } from './Operations';
import { ReconciliationPage } from './Reconciliation';
import { SettlementReport } from './Settlement';

export function operatorNav(user: User): { to: string; label: string }[] {
  return [
    { to: '/overview', label: 'Overview' },
    { to: '/businesses', label: 'Businesses' },
    { to: '/collections', label: 'Collections' },
    { to: '/refunds', label: 'Refunds' },
    { to: '/disputes', label: 'Disputes' },
    { to: '/disbursements', label: 'Disbursements' },
    { to: '/reports/settlement', label: 'Settlement report' },
    { to: '/reconciliation', label: 'Reconciliation' },
    { to: '/go-live-requests', label: 'Go-live requests' },
    { to: '/webhooks', label: 'Failing webhooks' },
    { to: '/rates', label: 'Market rates' },
    ...(can(user, 'operate') ? [{ to: '/card-keys', label: 'Card key' }] : []),
    ...(can(user, 'team') ? [{ to: '/users', label: 'Users' }] : []),
    ...(can(user, 'audit') ? [{ to: '/audit', label: 'Audit log' }] : []),
  ];
}

export function operatorPage(path: string, user: User): ReactNode | null {
  // signing in lands on the overview: what waits on the operators first
  if (path === '/' || path === '/overview') return <Overview />;
  if (path === '/businesses') return <Businesses />;
  if (path === '/businesses/new') return <NewBusiness />;
  const business = match('/businesses/:id', path);
  if (business && /^\d+$/.test(business.id)) return <Business key={business.id} id={Number(business.id)} />;
  const part = match('/businesses/:id/:section', path);
  if (part && /^\d+$/.test(part.id) && part.section !== '' && isBusinessSection(part.section)) return <Business key={part.id} id={Number(part.id)} section={part.section} />;
  if (path === '/collections') return <CollectionsPage title="Collections" base="/collections" />;
  if (path === '/disbursements') return <DisbursementsPage base="/disbursements" />;
  const disbursement = match('/disbursements/:reference', path);
  if (disbursement) return <DisbursementPage key={disbursement.reference} reference={disbursement.reference} />;
  const collection = match('/collections/:reference', path);
  if (collection) return <CollectionPage key={collection.reference} reference={collection.reference} operator />;
  if (path === '/refunds') return <RefundsPage base="/refunds" />;
  if (path === '/disputes') return <OperatorDisputes />;
  // the report's own address, and the two a person guesses first
  if (path === '/reports/settlement' || path === '/reports' || path === '/settlement') return <SettlementReport />;
  if (path === '/reconciliation') return <ReconciliationPage />;
  if (path === '/go-live-requests') return <GoLiveRequests />;
  if (path === '/webhooks') return <FailingWebhooks />;
  if (path === '/rates') return <FxRates />;
  if (path === '/card-keys' && can(user, 'operate')) return <CardKeys />;
  if (path === '/users' && can(user, 'team')) return <People title="Users" />;
  if (path === '/audit' && can(user, 'audit')) return <AuditLog />;
  if (path === '/account') return <Account />;
  return null;
}
