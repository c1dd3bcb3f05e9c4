// The merchant portal's pages by address, for the signed-in user's own business.
import type { ReactNode } from 'react';
import { match } from '../../router';
import { can } from '../../session';
import type { NavItem, User } from '../../session';
import { Account } from '../shared/Account';
import { AuditLog } from '../shared/AuditLog';
import { CollectionPage, CollectionsPage } from '../shared/Collections';
import { DisbursementPage, DisbursementsPage } from '../shared/Disbursements';
import { Overview } from '../shared/Overview';
import { People } from '../shared/People';
import { RefundsPage } from '../shared/Refunds';
import { StatementPage } from '../shared/Statement';
import { ApiTokens } from '../shared/ApiTokens';
import { Balances } from './Balances';
import { Disputes } from './Disputes';
import { MerchantGoLive } from './GoLive';
import { NewDisbursement } from './NewDisbursement';
import { PaymentLinks } from './PaymentLinks';
import { WebhookDeliveries } from './WebhookDeliveries';

/** `waitingForYou`: the session's count of disbursements this person may approve, the Disbursements item's badge. */
export function merchantNav(user: User, waitingForYou = 0): NavItem[] {
  const badge = waitingForYou > 0 ? { count: waitingForYou, name: `${waitingForYou} waiting for your approval` } : undefined;
  return [
    { to: '/overview', label: 'Overview' },
    { to: '/payments', label: 'Payments' },
    { to: '/payment-links', label: 'Payment links' },
    { to: '/refunds', label: 'Refunds' },
    { to: '/disputes', label: 'Disputes' },
    { to: '/disbursements', label: 'Disbursements', badge },
    { to: '/balances', label: 'Balances' },
    { to: '/statement', label: 'Statement' },
    { to: '/developers', label: 'API tokens and webhooks' },
    { to: '/deliveries', label: 'Webhook deliveries' },
    { to: '/go-live', label: 'Go live' },
    ...(can(user, 'team') ? [{ to: '/team', label: 'Team' }] : []),
    ...(can(user, 'audit') ? [{ to: '/audit', label: 'Audit log' }] : []),
  ];
}

export function merchantPage(path: string, user: User): ReactNode | null {
  const businessId = user.business_id as number;
  if (path === '/payments') return <CollectionsPage title="Payments" base="/payments" businessId={businessId} />;
  const payment = match('/payments/:reference', path);
  if (payment) return <CollectionPage key={payment.reference} reference={payment.reference} operator={false} />;
  if (path === '/payment-links') return <PaymentLinks businessId={businessId} />;
  if (path === '/refunds') return <RefundsPage base="/refunds" businessId={businessId} />;
  if (path === '/disputes') return <Disputes businessId={businessId} />;
  if (path === '/disbursements') return <DisbursementsPage base="/disbursements" businessId={businessId} />;
  if (path === '/disbursements/new' && can(user, 'disburse')) return <NewDisbursement businessId={businessId} />;
  const disbursement = match('/disbursements/:reference', path);
  if (disbursement) return <DisbursementPage key={disbursement.reference} reference={disbursement.reference} />;
  // signing in lands on the overview: balances and today's payments first
  if (path === '/' || path === '/overview') return <Overview businessId={businessId} />;
  if (path === '/balances') return <Balances businessId={businessId} />;
  if (path === '/statement') return <StatementPage base="/statement" businessId={businessId} />;
  if (path === '/developers') return <ApiTokens businessId={businessId} page />;
  if (path === '/deliveries') return <WebhookDeliveries businessId={businessId} />;
  if (path === '/go-live') return <MerchantGoLive businessId={businessId} />;
  if (path === '/team' && can(user, 'team')) return <People businessId={businessId} title="Team" />;
  if (path === '/audit' && can(user, 'audit')) return <AuditLog businessId={businessId} />;
  if (path === '/account') return <Account />;
  return null;
}
