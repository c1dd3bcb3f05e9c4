// The sandbox simulator's payouts: no money moves. The outcome is decided by the payee's account_number when
// the payout is sent (ending in 502: the payout fails; 503: it stays with the processor, PROCESSING, for good;
// anything else completes) and carried in the simulated processor's reference, which its status query reads
// back (money-out.ts).
import type { PayoutConnector, PayoutObservedStatus } from '../types';
import { SimulatedOutcomes } from './money-out';

export const SANDBOX_PAYOUT_FAILS = '502';
export const SANDBOX_PAYOUT_STAYS = '503';

/** The simulator's own status words, mapped explicitly, by the code its reference carries, with their designated values. */
const OUTCOMES = new SimulatedOutcomes<PayoutObservedStatus>('SBXD', 'disbursement', {
  C: {
    word: 'PAID', status: 'COMPLETED',
    scenario: { name: 'DISBURSEMENT_SUCCESS', value: 'any other account_number', description: 'The simulated processor takes the payout and pays the payee; the held amount leaves the wallet and the fee is charged.' },
  },
  F: {
    word: 'REJECTED', status: 'FAILED', message: 'The simulated processor could not pay this account',
    scenario: { name: 'DISBURSEMENT_FAILURE', value: `any account_number ending in ${SANDBOX_PAYOUT_FAILS}`, description: 'The simulated processor takes the payout, then cannot pay the account; amount and fee return to available.' },
  },
  P: {
    word: 'QUEUED', status: 'PENDING',
    scenario: { name: 'DISBURSEMENT_STAYS_PROCESSING', value: `any account_number ending in ${SANDBOX_PAYOUT_STAYS}`, description: 'The simulated processor takes the payout and never finishes it: it stays PROCESSING, amount and fee held.' },
  },
});

function codeOf(accountNumber: string): 'C' | 'F' | 'P' {
  if (accountNumber.endsWith(SANDBOX_PAYOUT_FAILS)) return 'F';
  if (accountNumber.endsWith(SANDBOX_PAYOUT_STAYS)) return 'P';
  return 'C';
}

export const sandboxPayouts: PayoutConnector = {
  initiatePayout: async (_ctx, order) => OUTCOMES.accepted(codeOf(order.accountNumber), order.reference),
  queryPayout: async (_ctx, query) => OUTCOMES.query(query.vendorReference),
  parsePayoutCallback: () => ({ vendorReference: null, reported: null }),
};

/** The designated payee account numbers, as GET /v1/sandbox/scenarios lists them. */
export const disbursementScenarios = () => OUTCOMES.scenarios();

/** The payout side of a service type's processor: the simulator's for `sandbox`, a connector's own, or null. */
export function payoutConnectorOf(processors: { has(t: string): boolean; get(t: string): { connector: { payouts: PayoutConnector | null } | null } }, serviceType: string): PayoutConnector | null {
  if (serviceType === 'sandbox') return sandboxPayouts;
  return processors.has(serviceType) ? (processors.get(serviceType).connector?.payouts ?? null) : null;
}
