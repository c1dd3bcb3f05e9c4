// The sandbox simulator's refunds: no money moves. The outcome is decided by the refund's amount when it is
// sent (cents .13 fail, .14 are cancelled, any other amount completes) and carried in the simulated
// processor's reference, which its status query reads back (money-out.ts).
import type { ObservedStatus, RefundConnector } from '../types';
import { SimulatedOutcomes } from './money-out';

const FAIL_CENTS = 13n;
const CANCEL_CENTS = 14n;

/** The simulator's own status words, mapped explicitly, by the code its reference carries, with their designated values. */
const OUTCOMES = new SimulatedOutcomes<ObservedStatus>('SBXR', 'refund', {
  R: {
    word: 'REFUNDED', status: 'COMPLETED',
    scenario: { name: 'REFUND_SUCCESS', value: 'any other amount', description: 'The simulated processor takes the refund and pays the customer back; the held amount leaves the wallet.' },
  },
  D: {
    word: 'DECLINED', status: 'FAILED', message: 'The simulated processor declined the refund',
    scenario: { name: 'REFUND_FAILURE', value: 'any amount ending in .13', description: 'The simulated processor takes the refund, then declines it; the held amount returns to available.' },
  },
  A: {
    word: 'ABANDONED', status: 'CANCELLED', message: 'The simulated processor cancelled the refund',
    scenario: { name: 'REFUND_CANCELLED', value: 'any amount ending in .14', description: 'The simulated processor takes the refund, then cancels it; the held amount returns to available.' },
  },
});

function codeOf(amountMinor: bigint): 'R' | 'D' | 'A' {
  const cents = amountMinor % 100n;
  return cents === FAIL_CENTS ? 'D' : cents === CANCEL_CENTS ? 'A' : 'R';
}

export const sandboxRefunds: RefundConnector = {
  initiateRefund: async (_ctx, order) => OUTCOMES.accepted(codeOf(order.amountMinor), order.reference),
  queryRefund: async (_ctx, query) => OUTCOMES.query(query.vendorReference),
  parseRefundCallback: () => ({ vendorReference: null, reported: null }),
};

/** The designated refund amounts, as GET /v1/sandbox/scenarios lists them. */
export const refundScenarios = () => OUTCOMES.scenarios();

/** The refund side of a service type's processor: the simulator's for `sandbox`, a connector's own, or null. */
export function refundConnectorOf(processors: { has(t: string): boolean; get(t: string): { connector: { refunds: RefundConnector | null } | null } }, serviceType: string): RefundConnector | null {
  if (serviceType === 'sandbox') return sandboxRefunds;
  return processors.has(serviceType) ? (processors.get(serviceType).connector?.refunds ?? null) : null;
}
