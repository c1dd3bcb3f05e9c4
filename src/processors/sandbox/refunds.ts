// The sandbox simulator's refunds: no money moves. Stateless like the rest of the simulator: the outcome
// is decided by the refund's amount when it is sent (cents .13 fail, .14 are cancelled, any other amount
// completes) and carried in the simulated processor's reference, which its status query reads back.
import type { components } from '../../../generated/merchant-api';
import type { ObservedStatus, QueryResult, RefundConnector, RefundOrder, RefundSendResult, StatusQuery } from '../types';

const FAIL_CENTS = 13n;
const CANCEL_CENTS = 14n;

/** The simulator's own status words, mapped explicitly. */
const VENDOR_STATUS: Record<string, ObservedStatus> = { REFUNDED: 'COMPLETED', DECLINED: 'FAILED', ABANDONED: 'CANCELLED' };
const WORD_OF_CODE: Record<string, string> = { R: 'REFUNDED', D: 'DECLINED', A: 'ABANDONED' };
const FAILURE_MESSAGES: Record<string, string> = {
  DECLINED: 'The simulated processor declined the refund',
  ABANDONED: 'The simulated processor cancelled the refund',
};
const VENDOR_REFERENCE = /^SBXR-([RDA])-[A-Za-z0-9-]+$/;

function codeOf(amountMinor: bigint): 'R' | 'D' | 'A' {
  const cents = amountMinor % 100n;
  return cents === FAIL_CENTS ? 'D' : cents === CANCEL_CENTS ? 'A' : 'R';
}

export const sandboxRefunds: RefundConnector = {
  async initiateRefund(_ctx, order: RefundOrder): Promise<RefundSendResult> {
    return { kind: 'accepted', vendorReference: `SBXR-${codeOf(order.amountMinor)}-${order.reference}` };
  },
  async queryRefund(_ctx, query: StatusQuery): Promise<QueryResult> {
    const m = query.vendorReference ? VENDOR_REFERENCE.exec(query.vendorReference) : null;
    if (!m) return { kind: 'not_found' };
    const word = WORD_OF_CODE[m[1]];
    const status = VENDOR_STATUS[word];
    return {
      kind: 'observed',
      observed: { status, vendorStatus: word, message: FAILURE_MESSAGES[word] ?? null, amountMinor: null, currency: null, unmapped: false },
    };
  },
  parseRefundCallback: () => ({ vendorReference: null, reported: null }),
};

type Scenario = components['schemas']['SandboxScenario'];

/** The designated refund amounts, as GET /v1/sandbox/scenarios lists them. */
export function refundScenarios(): Scenario[] {
  const base = { transaction_type: 'refund' as const, payment_method: null };
  return [
    {
      ...base, name: 'REFUND_SUCCESS', value: 'any other amount', outcome: 'COMPLETED',
      description: 'The simulated processor takes the refund and pays the customer back; the held amount leaves the wallet.',
      states: ['PENDING', 'PROCESSING', 'COMPLETED'],
      notifications: [{ sequence: 1, transaction_status: 'PROCESSING' }, { sequence: 2, transaction_status: 'COMPLETED' }],
    },
    {
      ...base, name: 'REFUND_FAILURE', value: 'any amount ending in .13', outcome: 'FAILED',
      description: 'The simulated processor takes the refund, then declines it; the held amount returns to available.',
      states: ['PENDING', 'PROCESSING', 'FAILED'],
      notifications: [{ sequence: 1, transaction_status: 'PROCESSING' }, { sequence: 2, transaction_status: 'FAILED' }],
    },
    {
      ...base, name: 'REFUND_CANCELLED', value: 'any amount ending in .14', outcome: 'CANCELLED',
      description: 'The simulated processor takes the refund, then cancels it; the held amount returns to available.',
      states: ['PENDING', 'PROCESSING', 'CANCELLED'],
      notifications: [{ sequence: 1, transaction_status: 'PROCESSING' }, { sequence: 2, transaction_status: 'CANCELLED' }],
    },
  ];
}

/** The refund side of a service type's processor: the simulator's for `sandbox`, a connector's own, or null. */
export function refundConnectorOf(processors: { has(t: string): boolean; get(t: string): { connector: { refunds: RefundConnector | null } | null } }, serviceType: string): RefundConnector | null {
  if (serviceType === 'sandbox') return sandboxRefunds;
  return processors.has(serviceType) ? (processors.get(serviceType).connector?.refunds ?? null) : null;
}
