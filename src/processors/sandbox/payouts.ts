// The sandbox simulator's payouts: no money moves. Stateless like the rest of the simulator: the outcome is
// decided by the payee's account_number when the payout is sent (ending in 502: the payout fails; 503: it
// stays with the processor, PROCESSING, for good; anything else completes) and carried in the simulated
// processor's reference, which its status query reads back.
import type { components } from '../../../generated/merchant-api';
import type { Observed, PayoutConnector, PayoutObservedStatus, PayoutOrder, QueryResult, SendResult, StatusQuery } from '../types';

export const SANDBOX_PAYOUT_FAILS = '502';
export const SANDBOX_PAYOUT_STAYS = '503';

/** The simulator's own status words, mapped explicitly. */
const VENDOR_STATUS: Record<string, PayoutObservedStatus> = { PAID: 'COMPLETED', REJECTED: 'FAILED', QUEUED: 'PENDING' };
const WORD_OF_CODE: Record<string, string> = { C: 'PAID', F: 'REJECTED', P: 'QUEUED' };
const FAILURE_MESSAGES: Record<string, string> = { REJECTED: 'The simulated processor could not pay this account' };
const VENDOR_REFERENCE = /^SBXD-([CFP])-[A-Za-z0-9-]+$/;

function codeOf(accountNumber: string): 'C' | 'F' | 'P' {
  if (accountNumber.endsWith(SANDBOX_PAYOUT_FAILS)) return 'F';
  if (accountNumber.endsWith(SANDBOX_PAYOUT_STAYS)) return 'P';
  return 'C';
}

export const sandboxPayouts: PayoutConnector = {
  async initiatePayout(_ctx, order: PayoutOrder): Promise<SendResult> {
    return { kind: 'accepted', vendorReference: `SBXD-${codeOf(order.accountNumber)}-${order.reference}` };
  },
  async queryPayout(_ctx, query: StatusQuery): Promise<QueryResult<PayoutObservedStatus>> {
    const m = query.vendorReference ? VENDOR_REFERENCE.exec(query.vendorReference) : null;
    if (!m) return { kind: 'not_found' };
    const word = WORD_OF_CODE[m[1]];
    const observed: Observed<PayoutObservedStatus> = {
      status: VENDOR_STATUS[word], vendorStatus: word, message: FAILURE_MESSAGES[word] ?? null, amountMinor: null, currency: null, unmapped: false,
    };
    return { kind: 'observed', observed };
  },
  parsePayoutCallback: () => ({ vendorReference: null, reported: null }),
};

type Scenario = components['schemas']['SandboxScenario'];

/** The designated payee account numbers, as GET /v1/sandbox/scenarios lists them. */
export function disbursementScenarios(): Scenario[] {
  const base = { transaction_type: 'disbursement' as const, payment_method: null };
  return [
    {
      ...base, name: 'DISBURSEMENT_SUCCESS', value: 'any other account_number', outcome: 'COMPLETED',
      description: 'The simulated processor takes the payout and pays the payee; the held amount leaves the wallet and the fee is charged.',
      states: ['PENDING', 'PROCESSING', 'COMPLETED'],
      notifications: [{ sequence: 1, transaction_status: 'PROCESSING' }, { sequence: 2, transaction_status: 'COMPLETED' }],
    },
    {
      ...base, name: 'DISBURSEMENT_FAILURE', value: `any account_number ending in ${SANDBOX_PAYOUT_FAILS}`, outcome: 'FAILED',
      description: 'The simulated processor takes the payout, then cannot pay the account; amount and fee return to available.',
      states: ['PENDING', 'PROCESSING', 'FAILED'],
      notifications: [{ sequence: 1, transaction_status: 'PROCESSING' }, { sequence: 2, transaction_status: 'FAILED' }],
    },
    {
      ...base, name: 'DISBURSEMENT_STAYS_PROCESSING', value: `any account_number ending in ${SANDBOX_PAYOUT_STAYS}`, outcome: 'PROCESSING',
      description: 'The simulated processor takes the payout and never finishes it: it stays PROCESSING, amount and fee held.',
      states: ['PENDING', 'PROCESSING'],
      notifications: [{ sequence: 1, transaction_status: 'PROCESSING' }],
    },
  ];
}

/** The payout side of a service type's processor: the simulator's for `sandbox`, a connector's own, or null. */
export function payoutConnectorOf(processors: { has(t: string): boolean; get(t: string): { connector: { payouts: PayoutConnector | null } | null } }, serviceType: string): PayoutConnector | null {
  if (serviceType === 'sandbox') return sandboxPayouts;
  return processors.has(serviceType) ? (processors.get(serviceType).connector?.payouts ?? null) : null;
}
